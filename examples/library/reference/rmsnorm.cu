// Reference for task `rmsnorm`: RMS normalisation over the last axis of a rows x cols fp32 matrix
// with a per-column gain, eps = 1e-6: y[r][j] = x[r][j] / sqrt((1/cols) sum_k x[r][k]^2 + 1e-6) * g[j].
// One block of 256 threads per row: the sum of squares by a shared-memory tree, then the write.
// Default launch: grid rows, block 256.
__global__ void rmsnorm(const float* x, const float* g, float* y, int rows, int cols)
{
    __shared__ float part[256];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    float q = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        q += xr[j] * xr[j];
    }
    part[threadIdx.x] = q;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    float r = 1.0f / sqrtf(part[0] / (float)cols + 1e-6f);
    for (int j = threadIdx.x; j < cols; j += 256) {
        yr[j] = xr[j] * r * g[j];
    }
}
