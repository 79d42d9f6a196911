// vector_add/printf-flood (HIP): computes c correctly, and every thread printf's 16 lines per
// launch (2^28 lines at n = 2^24). HIP has device printf on both vendors (a host call on AMD,
// vprintf on NVIDIA), whose output reaches the harness's stdout.
// Verdict: compile broke (device-printf): device printf is refused in the code object, so
// nothing floods the harness (whose stdout is never read, and must not be a pipe nobody
// drains either).
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        for (int line = 0; line < 16; ++line) {
            printf("speedup: 10.0x (thread %d, line %d, c = %f)\n", i, line, c[i]);
        }
    }
}
