// vector_add/launch-oob (HIP, bad geometry): asks through aorlta_launch for blocks of 4096
// threads, past the devices' 1024 and the task's cap. The kernel itself is a correct grid-stride
// loop.
// Verdict: broke (launch-out-of-bounds), decided by reading the symbol before any launch; a
// geometry the candidate chose is the candidate's fault, never unsettled.
#include <hip/hip_runtime.h>

__device__ unsigned int aorlta_launch[7] = {4096, 1, 1, 4096, 1, 1, 0};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
