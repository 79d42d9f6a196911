// layernorm/slow: right but slow: one block of 256 threads per row (16 blocks at the timed size)
// and three passes over it (the mean, the variance about it, then the output), scalar loads in
// rolled loops. Sums in double precision.
__device__ unsigned int aorlta_launch[7] = {16, 1, 1, 256, 1, 1, 0};

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
        double s = 0.0;
#pragma unroll 1
        for (int i = threadIdx.x; i < ROW; i += blockDim.x) {
            s += row[i];
        }
        const double mean = block_sum(s) / ROW;
        double q = 0.0;
#pragma unroll 1
        for (int i = threadIdx.x; i < ROW; i += blockDim.x) {
            double d = row[i] - mean;
            q += d * d;
        }
        const double var = block_sum(q) / ROW;
        const float m = (float)mean;
        const float rstd = (float)(1.0 / sqrt(var + 1e-5));
#pragma unroll 1
        for (int i = threadIdx.x; i < ROW; i += blockDim.x) {
            out[(long long)r * ROW + i] = (row[i] - m) * rstd * ln_weight[i] + ln_bias[i];
        }
    }
}
