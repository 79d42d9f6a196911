// layernorm/wrong: the reference with one mistake: it computes the variance as E[x^2] - E[x]^2,
// which cancels catastrophically on rows whose values lie close together (right on the typical
// draw).
// Verdict: ref.native broke (output-mismatch).
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
        q += xr[j] * xr[j];
    }
    float rstd = 1.0f / sqrtf((block_sum(q, part) / (float)cols - mean * mean) + 1e-5f);
    for (int j = threadIdx.x; j < cols; j += 256) {
        yr[j] = (xr[j] - mean) * rstd * gamma[j] + beta[j];
    }
}