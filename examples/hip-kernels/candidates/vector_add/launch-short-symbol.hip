// vector_add/launch-short-symbol (HIP, bad geometry): defines aorlta_launch with only 3 elements
// (12 bytes instead of 28). A harness that copies 28 bytes from the symbol's address without
// checking the size the module reports would read past it into whatever follows.
// The kernel is a correct grid-stride loop.
// Verdict: broke (launch-out-of-bounds: a 12-byte symbol, 28 expected), before any launch.
#include <hip/hip_runtime.h>

__device__ unsigned int aorlta_launch[3] = {1024, 1, 1};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
