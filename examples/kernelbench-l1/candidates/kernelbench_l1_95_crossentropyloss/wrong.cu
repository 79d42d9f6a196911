// crossentropyloss/wrong: the fast kernel giving each warp groups of 32 consecutive rows, with a
// loop that stops before an incomplete group: when batch_size is not a multiple of 32 the last
// rows are left out of the sum, which is still divided by batch_size. Right at 32 and 32768 rows,
// wrong at 33.
__device__ unsigned int aorlta_launch[7] = {528, 1, 1, 256, 1, 1, 0};
__device__ float block_totals[528];
__device__ unsigned int blocks_done;

#define CLASSES 4096

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    if (m2 > m) {
        s = s * expf(m - m2) + s2;
        m = m2;
    } else if (m2 > -INFINITY) {
        s += s2 * expf(m2 - m);
    }
}

__global__ void crossentropyloss(const float* predictions, const long long* targets, float* out, int batch_size)
{
    __shared__ float warp_totals[32];
    __shared__ bool last;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int warps = gridDim.x * (blockDim.x >> 5);
    const bool vec = (((unsigned long long)predictions) & 15) == 0;
    float total = 0.0f;
    for (int g = 32 * (blockIdx.x * (blockDim.x >> 5) + warp); g + 32 <= batch_size; g += 32 * warps) {
        for (int r = g; r < g + 32; ++r) {
            const float* row = predictions + (long long)r * CLASSES;
            float m = -INFINITY, s = 0.0f;
            if (vec) {
                const float4* r4 = reinterpret_cast<const float4*>(row);
#pragma unroll 4
                for (int c = lane; c < CLASSES / 4; c += 32) {
                    float4 v = __ldg(r4 + c);
                    float top = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
                    if (top > m) {
                        s *= expf(m - top);
                        m = top;
                    }
                    s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
                }
            } else {
                for (int c = lane; c < CLASSES; c += 32) {
                    float v = row[c];
                    if (v > m) {
                        s = s * expf(m - v) + 1.0f;
                        m = v;
                    } else {
                        s += expf(v - m);
                    }
                }
            }
            for (int o = 16; o > 0; o >>= 1) {
                merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
            }
            if (lane == 0) {
                total += m + logf(s) - row[targets[r]];
            }
        }
    }
    if (lane == 0) {
        warp_totals[warp] = total;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
            t += warp_totals[w];
        }
        block_totals[blockIdx.x] = t;
        __threadfence();
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        float t = 0.0f;
        for (int b = 0; b < (int)gridDim.x; ++b) {
            t += __ldcg(&block_totals[b]);
        }
        out[0] = t / batch_size;
        blocks_done = 0;
    }
}
