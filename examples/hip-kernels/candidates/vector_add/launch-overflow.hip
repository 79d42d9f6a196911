// vector_add/launch-overflow (HIP, bad geometry): every grid dimension is inside the devices'
// limits (x = 2^22, y = z = 2^10), but the block count 2^42 wraps to 0 in 32-bit arithmetic, so
// a cap check that multiplies in u32 would let it through and the launch would run for hours.
// The kernel is a correct grid-stride loop over x only (other rows of the grid just return).
// Verdict: broke (launch-out-of-bounds: 2^42 blocks), before any launch.
#include <hip/hip_runtime.h>

__device__ unsigned int aorlta_launch[7] = {1u << 22, 1u << 10, 1u << 10, 256, 1, 1, 0};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    if (blockIdx.y != 0 || blockIdx.z != 0) {
        return;
    }
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
