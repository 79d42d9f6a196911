// transpose/self (HIP): the reference kernel, its code unchanged (only this comment differs).
// Verdict: correct (ref.native clean); ref.speedup not-faster with s about 1.00 at ratio 1.1.
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[(long long)c * rows + r] = in[(long long)r * cols + c];
    }
}
