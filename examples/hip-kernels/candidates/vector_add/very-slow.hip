// vector_add/very-slow (HIP): computes c[i] = a[i] + b[i] correctly, but each thread first runs
// a dependent chain of 100000 FMAs whose result is folded into the output as `0.0f * acc` (the
// compiler cannot drop it: without fast-math 0 * x is not 0 for inf/NaN x; acc stays finite, so
// the output is exact). Roughly 1000x the reference at n = 2^24 on either vendor's GPU.
// Verdict: correct; ref.speedup too-slow-to-measure in the default budget (broke, reward 0.0),
// not-faster at about 0.001 with a larger budget.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = a[i] + b[i];
        float acc = x;
        for (int r = 0; r < 100000; ++r) {
            acc = fmaf(acc, 0.5f, x);
        }
        c[i] = x + 0.0f * acc;
    }
}
