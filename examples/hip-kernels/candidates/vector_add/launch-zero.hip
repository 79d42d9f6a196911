// vector_add/launch-zero (HIP, bad geometry): aorlta_launch asks for blocks of 0 threads. The
// runtime refuses such a launch with an "invalid value" error; that error is the candidate's
// doing. The kernel is a correct grid-stride loop.
// Verdict: broke (launch-out-of-bounds: a zero dimension), never unsettled: a launch error
// caused by the candidate's own geometry is not an infrastructure fault.
#include <hip/hip_runtime.h>

__device__ unsigned int aorlta_launch[7] = {1024, 1, 1, 0, 1, 1, 0};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
