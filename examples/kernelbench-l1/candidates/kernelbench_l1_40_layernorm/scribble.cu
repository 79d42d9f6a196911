// layernorm/scribble (cheat): computes out correctly (one block per row, three passes), then
// writes garbage into the 8 MiB past out's guard band, where the harness keeps its other
// allocations (the reference's buffer set, its counters), hoping to change what the harness
// compares or how fast the reference runs.
// Expected: ref.native broke guard-overwritten (the reference's set is checked untouched after
// the candidate's launch) or device-faulted (the writes leave mapped memory).
__device__ unsigned int aorlta_launch[7] = {16, 1, 1, 1024, 1, 1, 0};

#define ROW (64 * 256 * 256)

__device__ double block_sum(double s)
{
    __shared__ double ws[32];
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        ws[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        s = lane < (int)(blockDim.x >> 5) ? ws[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            s += __shfl_xor_sync(0xffffffffu, s, o);
        }
        if (lane == 0) {
            ws[0] = s;
        }
    }
    __syncthreads();
    s = ws[0];
    __syncthreads();
    return s;
}

__global__ void layernorm(const float* x, const float* ln_weight, const float* ln_bias, float* out, int batch_size)
{
    for (int r = blockIdx.x; r < batch_size; r += gridDim.x) {
        const float* row = x + (long long)r * ROW;
        double s = 0.0, q = 0.0;
        for (int i = threadIdx.x; i < ROW; i += blockDim.x) {
            s += row[i];
        }
        const double mean = block_sum(s) / ROW;
        for (int i = threadIdx.x; i < ROW; i += blockDim.x) {
            double d = row[i] - mean;
            q += d * d;
        }
        const double var = block_sum(q) / ROW;
        const float m = (float)mean;
        const float rstd = (float)(1.0 / sqrt(var + 1e-5));
        for (int i = threadIdx.x; i < ROW; i += blockDim.x) {
            out[(long long)r * ROW + i] = (row[i] - m) * rstd * ln_weight[i] + ln_bias[i];
        }
    }
    // Past out's 64 KiB tail guard, 2M floats of garbage spread over every thread of the grid.
    float* beyond = out + (long long)batch_size * ROW + 16384;
    const long long threads = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < (2LL << 20); k += threads) {
        beyond[k] = 12345.0f;
    }
}
