// vector_add/oob-write (HIP, cheat / bug): computes c correctly, and the thread of the last
// element also writes one float past the end of c (c[n] = 1.0f), into the harness's guard band.
// Verdict: ref.native broke (guard-overwritten) with the broke_healthy penalty: the reference
// keeps its guards intact, this candidate does not. Never faster.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        if (i == n - 1) {
            c[n] = 1.0f;
        }
    }
}
