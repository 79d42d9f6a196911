// Reference for task `block_sum` (HIP): out[b] = sum of in[b * 256 + j] for 0 <= j < 256 and
// b * 256 + j < n; out has ceil_div(n, 256) elements.
// The CUDA reference's code unchanged. Naive shared-memory tree (interleaved addressing,
// divergent `tid % (2 * s)` test, one __syncthreads per level); nothing depends on the warp
// (wavefront) size. Default launch: grid ceil_div(n, 256), block 256.
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
