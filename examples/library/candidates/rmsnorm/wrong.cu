// rmsnorm/wrong: the reference with one mistake: it divides by the root of the sum, not of the
// mean.
// Verdict: ref.native broke (output-mismatch).
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
    float r = 1.0f / sqrtf(part[0] + 1e-6f);
    for (int j = threadIdx.x; j < cols; j += 256) {
        yr[j] = xr[j] * r * g[j];
    }
}