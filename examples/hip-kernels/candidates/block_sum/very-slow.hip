// block_sum/very-slow (HIP): the reference's tree, but each thread first runs a dependent chain
// of 100000 FMAs on its element, entering the sum as `0.0f * acc` (kept by the compiler, exact
// since acc stays finite). Roughly 1000x the reference at n = 2^24.
// Verdict: correct; ref.speedup too-slow-to-measure in the default budget, not-faster at about
// 0.001 with a larger one.
#include <hip/hip_runtime.h>

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * 256u + tid;
    float x = (i < (unsigned int)n) ? in[i] : 0.0f;
    float acc = x;
    for (int r = 0; r < 100000; ++r) {
        acc = fmaf(acc, 0.5f, x);
    }
    s[tid] = x + 0.0f * acc;
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
