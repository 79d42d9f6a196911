// transpose/slower (HIP): the naive reference, but every element is moved twice: each thread
// also moves the element mirrored through the centre of the matrix (rows-1-r, cols-1-c), so
// every output is written twice (same value) and twice the memory traffic is spent.
// Verdict: correct; ref.speedup not-faster with s about 0.5 (expected 0.4-0.7).
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[(long long)c * rows + r] = in[(long long)r * cols + c];
        int mr = rows - 1 - r;
        int mc = cols - 1 - c;
        out[(long long)mc * rows + mr] = in[(long long)mr * cols + mc];
    }
}
