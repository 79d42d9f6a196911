// Reference for task `layernorm`: layer normalisation over the last axis of a rows x cols fp32
// matrix with per-column gain and bias, eps = 1e-5, biased variance:
// mean_r = (1/cols) sum_j x[r][j], var_r = (1/cols) sum_j (x[r][j] - mean_r)^2,
// y[r][j] = (x[r][j] - mean_r) / sqrt(var_r + 1e-5) * gamma[j] + beta[j].
// One block of 256 threads per row, two passes (the mean, then the variance about it; stable
// when the row's values are close together), each a shared-memory tree, then the write.
// Default launch: grid rows, block 256.
__device__ float block_sum(float v, float* part)
{
    part[threadIdx.x] = v;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    float total = part[0];
    __syncthreads();
    return total;
}

__global__ void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows, int cols)
{
    __shared__ float part[256];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        s += xr[j];
    }
    float mean = block_sum(s, part) / (float)cols;
    float q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        float d = xr[j] - mean;
        q += d * d;
    }
    float rstd = 1.0f / sqrtf(block_sum(q, part) / (float)cols + 1e-5f);
    for (int j = threadIdx.x; j < cols; j += 256) {
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}
