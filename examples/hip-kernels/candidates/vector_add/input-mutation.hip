// vector_add/input-mutation (HIP, cheat): computes c correctly, then casts away const and
// overwrites its input a with the result (a harness that compares the candidate against a
// reference run afterwards on the same input buffer would see the reference compute garbage).
// Verdict: ref.native broke (input-mutated) with the broke_healthy penalty. Never faster.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = a[i] + b[i];
        c[i] = sum;
        const_cast<float*>(a)[i] = sum;
    }
}
