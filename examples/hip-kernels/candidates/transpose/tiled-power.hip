// transpose/tiled-power (HIP): the power case of the timing judge, a kernel truly about 1.14x the
// naive reference, judged at ratio 1.05: it must be `faster` every time, so that the families and
// checks added around the timed launches cost the judge no power. It is transpose/tiled-slight
// with more of its blocks tiled (TILED_PERCENT 13 of every 100; on an H200, "HIP source on
// NVIDIA", the standalone medians were 12: 1.11, 16: 1.14, and the harness measures a little more
// than those). Verdict: correct; ref.speedup faster at ratio 1.05.
#include <hip/hip_runtime.h>

#ifndef TILED_PERCENT
#define TILED_PERCENT 13
#endif
#define TILE 16

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int c0 = blockIdx.x * TILE;
    int r0 = blockIdx.y * TILE;
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    if (block % 100u < TILED_PERCENT) {
        // The whole block takes this path (the test depends on the block alone), so every
        // thread reaches the barrier.
        int c = c0 + threadIdx.x;
        int r = r0 + threadIdx.y;
        if (r < rows && c < cols) {
            tile[threadIdx.y][threadIdx.x] = in[(long long)r * cols + c];
        }
        __syncthreads();
        int oc = c0 + threadIdx.y;
        int orow = r0 + threadIdx.x;
        if (oc < cols && orow < rows) {
            out[(long long)oc * rows + orow] = tile[threadIdx.x][threadIdx.y];
        }
    } else {
        int c = c0 + threadIdx.x;
        int r = r0 + threadIdx.y;
        if (r < rows && c < cols) {
            out[(long long)c * rows + r] = in[(long long)r * cols + c];
        }
    }
}
