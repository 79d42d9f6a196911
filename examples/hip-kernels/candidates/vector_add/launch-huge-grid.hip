// vector_add/launch-huge-grid (HIP, bad geometry): asks through aorlta_launch for a grid of 2^30
// blocks, inside the devices' limits for grid x but far past the task's cap of 2^24 blocks;
// launched, it would take minutes of mostly idle blocks. The kernel is a correct grid-stride
// loop.
// Verdict: broke (launch-out-of-bounds: more blocks than the task allows), before any launch.
#include <hip/hip_runtime.h>

__device__ unsigned int aorlta_launch[7] = {1u << 30, 1, 1, 256, 1, 1, 0};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
