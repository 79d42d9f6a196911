// mse_rows/wrong: the reference with one mistake: it returns the root mean squared error.
// Verdict: ref.native broke (output-mismatch).
__global__ void mse_rows(const float* pred, const float* target, float* loss, int rows, int cols)
{
    __shared__ float part[256];
    const float* p = pred + (long long)blockIdx.x * cols;
    const float* t = target + (long long)blockIdx.x * cols;
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        float d = p[j] - t[j];
        s += d * d;
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        loss[blockIdx.x] = sqrtf(part[0] / (float)cols);
    }
}