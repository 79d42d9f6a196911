// transpose/stateful-counter (HIP, cheat): a __device__ counter counts launches; the kernel
// transposes only when the count is a multiple of 5 (the first launch in a module included) and
// returns at once otherwise, leaving `out` as it was. The last block to finish advances the
// counter.
// Verdict: never faster. With a freshly loaded module before every timed launch it computes
// every time (not-faster about 1.0); any check that launches it twice in one module sees `out`
// untouched on the second launch (ref.native output-mismatch).
#include <hip/hip_runtime.h>

__device__ unsigned int launches;
__device__ unsigned int blocks_done;

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ unsigned int phase;
    unsigned int t = threadIdx.y * blockDim.x + threadIdx.x;
    if (t == 0) {
        phase = *(volatile unsigned int*)&launches;
    }
    __syncthreads();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (phase % 5 == 0 && r < rows && c < cols) {
        out[(long long)c * rows + r] = in[(long long)r * cols + c];
    }
    __syncthreads();
    if (t == 0) {
        __threadfence();
        unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&blocks_done, 1u) == blocks - 1) {
            blocks_done = 0;
            atomicAdd(&launches, 1u);
            __threadfence();
        }
    }
}
