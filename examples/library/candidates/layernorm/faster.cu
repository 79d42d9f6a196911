// layernorm/faster: the reference's block per row, but the row is read once, into registers, with
// 16-byte loads (up to four per thread when cols is a multiple of 4, at most 4096, and the
// pointers 16-byte aligned); the mean and then the variance about it come from registers, each
// reduced by warp shuffles and one barrier, and the row is written from registers; otherwise
// the same in scalar steps. Default launch.
// Verdict: correct; ref.speedup faster (about 1.3x on the H200).

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, off);
    }
    return v;
}

// The sum over a 256-thread block, returned to every thread: shuffles within each warp, the
// eight warp totals through shared memory, one barrier. `part` holds 8 floats, one use only.
__device__ __forceinline__ float block_sum(float v, float* part)
{
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) {
        part[threadIdx.x >> 5] = v;
    }
    __syncthreads();
    return warp_sum((threadIdx.x & 31) < 8 ? part[threadIdx.x & 31] : 0.0f);
}

__device__ __forceinline__ bool aligned16(const void* p)
{
    return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

__global__ void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols)
{
    __shared__ float part[2][8];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    const int t = threadIdx.x;
    if ((cols & 3) == 0 && cols <= 4096 && aligned16(x) && aligned16(gamma) && aligned16(beta) && aligned16(y)) {
        const int n4 = cols >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4 v[4];
        float s = 0.0f;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int i = t + k * 256;
            if (i < n4) {
                v[k] = x4[i];
                s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
            }
        }
        float mean = block_sum(s, part[0]) / (float)cols;
        float q = 0.0f;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int i = t + k * 256;
            if (i < n4) {
                float a = v[k].x - mean, b = v[k].y - mean, c = v[k].z - mean, d = v[k].w - mean;
                q += (a * a + b * b) + (c * c + d * d);
            }
        }
        float rstd = 1.0f / sqrtf(block_sum(q, part[1]) / (float)cols + 1e-5f);
        const float4* g4 = reinterpret_cast<const float4*>(gamma);
        const float4* b4 = reinterpret_cast<const float4*>(beta);
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int i = t + k * 256;
            if (i < n4) {
                float4 gg = g4[i], bb = b4[i];
                y4[i] = make_float4((v[k].x - mean) * rstd * gg.x + bb.x, (v[k].y - mean) * rstd * gg.y + bb.y,
                                    (v[k].z - mean) * rstd * gg.z + bb.z, (v[k].w - mean) * rstd * gg.w + bb.w);
            }
        }
        return;
    }
    float s = 0.0f;
    for (int j = t; j < cols; j += 256) {
        s += xr[j];
    }
    float mean = block_sum(s, part[0]) / (float)cols;
    float q = 0.0f;
    for (int j = t; j < cols; j += 256) {
        float d = xr[j] - mean;
        q += d * d;
    }
    float rstd = 1.0f / sqrtf(block_sum(q, part[1]) / (float)cols + 1e-5f);
    for (int j = t; j < cols; j += 256) {
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}
