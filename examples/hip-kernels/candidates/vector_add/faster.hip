// vector_add/faster (HIP): float4 loads and stores in a grid-stride loop over a fixed grid (set
// by aorlta_launch: 2048 blocks of 256 threads, enough to fill a 304-CU MI300X or a 132-SM H200
// several times over), with a scalar path when a pointer is not 16-byte aligned and for the tail.
// Plain loads and stores only (no `__ldg`, no streaming-store intrinsic), so the same source
// builds with hipcc and through the portability header with nvcc.
// Verdict: correct. vector_add is memory-bound and the reference already reads and writes
// coalesced, so the gain is small: at ratio 1.1 this may be `faster` or `within-noise`; at ratio
// 1.0 it should be `faster`.
#include <hip/hip_runtime.h>

__device__ unsigned int aorlta_launch[7] = {2048, 1, 1, 256, 1, 1, 0};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)gridDim.x * blockDim.x;
    bool aligned = ((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b)
                     | reinterpret_cast<unsigned long long>(c)) & 15ull) == 0;
    long long done = 0;
    if (aligned) {
        long long n4 = n / 4;
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* b4 = reinterpret_cast<const float4*>(b);
        float4* c4 = reinterpret_cast<float4*>(c);
        for (long long v = tid; v < n4; v += stride) {
            float4 x = a4[v];
            float4 y = b4[v];
            c4[v] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        }
        done = n4 * 4;
    }
    for (long long i = done + tid; i < n; i += stride) {
        c[i] = a[i] + b[i];
    }
}
