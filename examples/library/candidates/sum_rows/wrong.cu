// sum_rows/wrong: the reference with one mistake: it starts its tree at 64, so half of the
// partial sums are lost.
// Verdict: ref.native broke (output-mismatch).
__global__ void sum_rows(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[256];
    const float* xr = x + (long long)blockIdx.x * cols;
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        s += xr[j];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = 64; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        y[blockIdx.x] = part[0];
    }
}