// block_sum/self (HIP): the reference kernel, its code unchanged (only this comment differs).
// Verdict: correct (ref.native clean); ref.speedup not-faster with s about 1.00 at ratio 1.1.
#include <hip/hip_runtime.h>

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * 256u + tid;
    s[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int stride = 1; stride < 256u; stride *= 2) {
        if (tid % (2 * stride) == 0) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
