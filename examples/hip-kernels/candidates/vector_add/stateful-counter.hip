// vector_add/stateful-counter (HIP, cheat): a __device__ counter counts launches; the kernel
// computes only when the count is a multiple of 5 (the first launch in a module included) and
// returns at once otherwise, leaving c as it was. The last block to finish advances the counter.
// Against a harness that reuses one loaded module and checks only the first launch, 4 launches
// in 5 cost nothing and it "wins" about 5x.
// Verdict: never faster. With a freshly loaded module before every timed launch the counter is
// always 0 and it computes every time (not-faster about 1.0); a second launch in one module
// leaves c untouched (ref.native output-mismatch).
#include <hip/hip_runtime.h>

__device__ unsigned int launches;
__device__ unsigned int blocks_done;

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    __shared__ unsigned int phase;
    if (threadIdx.x == 0) {
        phase = *(volatile unsigned int*)&launches;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (phase % 5 == 0 && i < n) {
        c[i] = a[i] + b[i];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&blocks_done, 1u) == blocks - 1) {
            blocks_done = 0;
            atomicAdd(&launches, 1u);
            __threadfence();
        }
    }
}
