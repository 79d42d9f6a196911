// transpose/faster (HIP): the classic tiled transpose: 32x32 tiles staged in shared memory
// (padded to 33 columns against bank conflicts) so that both the reads of `in` and the writes of
// `out` are coalesced; blocks of 32x8 threads, each moving 4 rows. aorlta_launch fixes a 128x128
// grid (one tile per block at 4096x4096) and the block loops over tiles with a grid stride, so
// any shape works. Nothing depends on the warp (wavefront) size.
// Verdict: correct; ref.speedup faster (the CUDA twin measured 2.4x on an H200; the gap on an
// AMD GPU can be much smaller, see tiled-slight.hip).
#include <hip/hip_runtime.h>

#define TILE 32
#define ROWS_PER_PASS 8

__device__ unsigned int aorlta_launch[7] = {128, 128, 1, TILE, ROWS_PER_PASS, 1, 0};

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int tiles_x = (cols + TILE - 1) / TILE;
    int tiles_y = (rows + TILE - 1) / TILE;
    for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
        for (int tx = blockIdx.x; tx < tiles_x; tx += gridDim.x) {
            int c = tx * TILE + threadIdx.x;
            for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS) {
                int r = ty * TILE + j;
                if (r < rows && c < cols) {
                    tile[j][threadIdx.x] = in[(long long)r * cols + c];
                }
            }
            __syncthreads();
            int r = ty * TILE + threadIdx.x;
            for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS) {
                int oc = tx * TILE + j;
                if (oc < cols && r < rows) {
                    out[(long long)oc * rows + r] = tile[threadIdx.x][j];
                }
            }
            __syncthreads();
        }
    }
}
