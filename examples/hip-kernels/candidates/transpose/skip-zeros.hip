// transpose/skip-zeros (HIP): right on the typical draw, wrong on inputs the task allows. A
// "sparse" shortcut that does not store zeros, as if the output were zeroed beforehand (the
// harness fills outputs with a sentinel). The task declares zeros legal in its input; the typical
// law never draws an exact zero, the `specials` family does. Verdict: ref.native broke
// output-mismatch.
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        float v = in[(long long)r * cols + c];
        if (v != 0.0f) {
            out[(long long)c * rows + r] = v;
        }
    }
}
