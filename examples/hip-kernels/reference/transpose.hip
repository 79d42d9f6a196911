// Reference for task `transpose` (HIP): `in` is rows x cols, row-major; `out` is cols x rows,
// row-major; out[c * rows + r] = in[r * cols + c].
// The CUDA reference's code unchanged. Naive: one thread per element, x over columns. Reads are
// coalesced, writes are strided by `rows` (uncoalesced). Default launch:
// grid (ceil_div(cols, 16), ceil_div(rows, 16)), block 16x16.
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[(long long)c * rows + r] = in[(long long)r * cols + c];
    }
}
