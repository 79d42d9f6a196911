// rmsnorm/faster: the reference's block per row, but the row is read once, into registers, with
// 16-byte loads (up to four per thread when cols is a multiple of 4, at most 4096, and the
// pointers 16-byte aligned), the sum of squares reduced by warp shuffles and one barrier, and
// the row written from registers; otherwise the same in scalar steps. Default launch.
// Verdict: correct; ref.speedup faster (about 1.15x on the H200: the reference already streams
// close to the memory bandwidth).

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

__global__ void rmsnorm(const float* x, const float* g, float* y, int rows, int cols)
{
    __shared__ float part[8];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    const int t = threadIdx.x;
    if ((cols & 3) == 0 && cols <= 4096 && aligned16(x) && aligned16(g) && aligned16(y)) {
        const int n4 = cols >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4 v[4];
        float q = 0.0f;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int i = t + k * 256;
            if (i < n4) {
                v[k] = x4[i];
                q += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
            }
        }
        float rs = 1.0f / sqrtf(block_sum(q, part) / (float)cols + 1e-6f);
        const float4* g4 = reinterpret_cast<const float4*>(g);
        float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            int i = t + k * 256;
            if (i < n4) {
                float4 gg = g4[i];
                y4[i] = make_float4(v[k].x * rs * gg.x, v[k].y * rs * gg.y, v[k].z * rs * gg.z, v[k].w * rs * gg.w);
            }
        }
        return;
    }
    float q = 0.0f;
    for (int j = t; j < cols; j += 256) {
        q += xr[j] * xr[j];
    }
    float rs = 1.0f / sqrtf(block_sum(q, part) / (float)cols + 1e-6f);
    for (int j = t; j < cols; j += 256) {
        yr[j] = xr[j] * rs * g[j];
    }
}
