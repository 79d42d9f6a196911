// logsoftmax_rows/faster: one warp per row instead of a block, and one pass fewer: each lane
// keeps a running (max, sum of exponentials) over a strided share of the row (online softmax),
// the 32 pairs are merged with __shfl_xor_sync, then the lanes write their share; no shared
// memory, no barriers. aorlta_launch fixes 2112 blocks of 256 threads whose warps loop over the
// rows with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (expected about 1.5-2.5x over the block-per-row passes).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 256, 1, 1, 0};

__global__ void logsoftmax_rows(const float* x, float* y, int rows, int cols)
{
    const int lane = threadIdx.x % 32;
    const long long warps = (long long)gridDim.x * 8;
    for (long long r = (long long)blockIdx.x * 8 + threadIdx.x / 32; r < rows; r += warps) {
        const float* xr = x + r * cols;
        float* yr = y + r * cols;
        float m = -INFINITY, s = 0.0f;
        for (int j = lane; j < cols; j += 32) {
            float v = xr[j];
            if (v > m) {
                s = s * expf(m - v) + 1.0f;
                m = v;
            } else {
                s += expf(v - m);
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off /= 2) {
            float om = __shfl_xor_sync(0xffffffffu, m, off);
            float os = __shfl_xor_sync(0xffffffffu, s, off);
            float nm = fmaxf(m, om);
            float a = s > 0.0f ? s * expf(m - nm) : 0.0f;
            float b = os > 0.0f ? os * expf(om - nm) : 0.0f;
            m = nm;
            s = a + b;
        }
        float lse = logf(s);
        for (int j = lane; j < cols; j += 32) {
            yr[j] = (xr[j] - m) - lse;
        }
    }
}
