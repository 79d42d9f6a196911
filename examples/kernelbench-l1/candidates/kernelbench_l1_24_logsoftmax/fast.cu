// logsoftmax/fast: one block per row (grid-stride over rows). The first pass keeps a running
// maximum and a running sum of exp(x - max) per thread (online softmax), merged across the block;
// the second writes x - (max + log(sum)). Two reads of each row and one write, float4 when the
// rows are 16-byte aligned. The module's kernel reads a long row three times (its maximum, its
// sum, then the output).
__device__ unsigned int aorlta_launch[7] = {528, 1, 1, 512, 1, 1, 0};

// Merges the running pair (m2, s2) into (m, s): s is a sum of exp(v - m).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    if (m2 > m) {
        s = s * expf(m - m2) + s2;
        m = m2;
    } else if (m2 > -INFINITY) {
        s += s2 * expf(m2 - m);
    }
}

// The block's (max, sum) pair, returned to every thread.
__device__ void block_merge(float& m, float& s)
{
    __shared__ float sm[32], ss[32];
    for (int o = 16; o > 0; o >>= 1) {
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        const bool in = lane < (int)(blockDim.x >> 5);
        m = in ? sm[lane] : -INFINITY;
        s = in ? ss[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) {
            merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
        }
        if (lane == 0) {
            sm[0] = m;
            ss[0] = s;
        }
    }
    __syncthreads();
    m = sm[0];
    s = ss[0];
    __syncthreads();
}

__global__ void logsoftmax(const float* x, float* out, int batch_size, int dim)
{
    const bool vec = ((((unsigned long long)x | (unsigned long long)out) & 15) == 0) && (dim & 3) == 0;
    for (int r = blockIdx.x; r < batch_size; r += gridDim.x) {
        const float* row = x + (long long)r * dim;
        float* orow = out + (long long)r * dim;
        float m = -INFINITY, s = 0.0f;
        if (vec) {
            const float4* r4 = reinterpret_cast<const float4*>(row);
            for (int c = threadIdx.x; c < (dim >> 2); c += blockDim.x) {
                float4 v = __ldg(r4 + c);
                float top = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
                if (top > m) {
                    s *= expf(m - top);
                    m = top;
                }
                s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
            }
        } else {
            for (int c = threadIdx.x; c < dim; c += blockDim.x) {
                float v = row[c];
                if (v > m) {
                    s = s * expf(m - v) + 1.0f;
                    m = v;
                } else {
                    s += expf(v - m);
                }
            }
        }
        block_merge(m, s);
        const float shift = m + logf(s);
        if (vec) {
            const float4* r4 = reinterpret_cast<const float4*>(row);
            float4* o4 = reinterpret_cast<float4*>(orow);
            for (int c = threadIdx.x; c < (dim >> 2); c += blockDim.x) {
                float4 v = __ldg(r4 + c);
                v.x -= shift;
                v.y -= shift;
                v.z -= shift;
                v.w -= shift;
                o4[c] = v;
            }
        } else {
            for (int c = threadIdx.x; c < dim; c += blockDim.x) {
                orow[c] = row[c] - shift;
            }
        }
    }
}
