// vector_add/self (HIP): the reference kernel, its code unchanged (only this comment differs).
// Verdict: correct (ref.native clean); ref.speedup not-faster with s about 1.00 at ratio 1.1
// (the "reference against itself" figure). Never `faster`.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
