// block_sum/slower (HIP): the reference's shared-memory tree, run twice per block: once for its
// own chunk and once for the mirrored chunk (chunks-1-b), so every output is computed and
// written twice (same value) and the input is read twice.
// Verdict: correct; ref.speedup not-faster with s about 0.5 (expected 0.4-0.7).
#include <hip/hip_runtime.h>

__global__ void block_sum(const float* in, float* out, int n)
{
    __shared__ float s[256];
    unsigned int tid = threadIdx.x;
    unsigned int chunks = gridDim.x;
    unsigned int targets[2] = {blockIdx.x, chunks - 1 - blockIdx.x};
    for (int t = 0; t < 2; ++t) {
        unsigned int b = targets[t];
        unsigned int i = b * 256u + tid;
        s[tid] = (i < (unsigned int)n) ? in[i] : 0.0f;
        __syncthreads();
        for (unsigned int stride = 1; stride < 256u; stride *= 2) {
            if (tid % (2 * stride) == 0) {
                s[tid] += s[tid + stride];
            }
            __syncthreads();
        }
        if (tid == 0) {
            out[b] = s[0];
        }
        __syncthreads();
    }
}
