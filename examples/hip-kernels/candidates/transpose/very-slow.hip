// transpose/very-slow (HIP): the naive reference, but each thread first runs a dependent chain
// of 200000 FMAs whose result enters the output as `0.0f * acc` (kept by the compiler, exact
// since acc stays finite). Several hundred to about 1000x the reference at 4096x4096.
// Verdict: correct; ref.speedup too-slow-to-measure in the default budget, not-faster at about
// 0.001 with a larger one.
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        float x = in[(long long)r * cols + c];
        float acc = x;
        for (int i = 0; i < 200000; ++i) {
            acc = fmaf(acc, 0.5f, x);
        }
        out[(long long)c * rows + r] = x + 0.0f * acc;
    }
}
