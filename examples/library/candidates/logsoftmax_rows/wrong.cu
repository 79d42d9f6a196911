// logsoftmax_rows/wrong: the reference with one mistake: it forgets to subtract the maximum it
// factored out.
// Verdict: ref.native broke (output-mismatch).
__global__ void logsoftmax_rows(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[256];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < cols; j += 256) {
        m = fmaxf(m, xr[j]);
    }
    part[threadIdx.x] = m;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
        }
        __syncthreads();
    }
    m = part[0];
    __syncthreads();
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        s += expf(xr[j] - m);
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    float lse = logf(part[0]);
    for (int j = threadIdx.x; j < cols; j += 256) {
        yr[j] = xr[j] - lse;
    }
}