// transpose/tiled-slight (HIP): a tiled transpose only slightly faster than the naive reference,
// the seed's "1.07x" case (a tiled transpose measured 1.07x the naive one on an MI350X). Each
// 16x16 block of the default geometry moves one 16x16 tile, either through shared memory (padded
// to 17 columns; reads and writes coalesced in 64-byte row segments) or as the reference does
// (writes strided by `rows`): the first TILED_PERCENT of every 100 consecutive blocks take the
// tiled path, the others the naive one. The reference stays the CUDA suite's naive kernel; the
// gap is set here, by the one constant to tune per GPU.
// On an H200 ("HIP source on NVIDIA", 4096 x 4096, medians of 30-60 interleaved launches with a
// cold L2, CUDA events; not the harness's protocol) s was: TILED_PERCENT 0: 1.00, 5: 1.04,
// 7: 1.06, 8: 1.06-1.07, 9: 1.08, 10: 1.09, 12: 1.11, 16: 1.14, 25: 1.25, 50: 1.69, 100: 1.87
// (the 32x32-tile transpose/faster: 2.41). Through `aorlta validate --gpu` the harness measured
// somewhat more: 8 gave s = 1.084-1.087, too close to ratio 1.1's not-faster bound (1.1 / 1.01
// with the 1% floor), and 6, the value shipped, gave 1.056-1.068 in three runs, not-faster at
// ratio 1.1 and faster at 1.0 each time. Tune it the same way on an AMD GPU, where the gap
// can be much smaller (the seed's whole tiled transpose was 1.07x on the MI350X, so a value near
// 100 may be the one there).
// Verdict: correct; ref.speedup not-faster at ratio 1.1 (s about 1.07, below the ratio) and
// faster at ratio 1.0.
#include <hip/hip_runtime.h>

#ifndef TILED_PERCENT
#define TILED_PERCENT 6
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
