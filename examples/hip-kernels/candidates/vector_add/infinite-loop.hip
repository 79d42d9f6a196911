// vector_add/infinite-loop (HIP, hang): every thread computes its element, then the thread of
// the last element spins forever on a volatile read of a device global that nothing writes (a
// volatile access is a side effect, so the compiler must keep the loop; HIP has no portable
// `__nanosleep`), so the kernel never returns.
// Verdict: ref.native broke (hung: the harness is killed at its timeout) with the broke_healthy
// penalty; the GPU must come back usable for the next job.
#include <hip/hip_runtime.h>

__device__ unsigned int never_set;

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        if (i == n - 1) {
            while (*(volatile unsigned int*)&never_set == 0u) {
            }
        }
    }
}
