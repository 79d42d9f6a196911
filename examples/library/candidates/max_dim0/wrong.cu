// max_dim0/wrong: the reference with one mistake: it never looks at the last of its 8 partial
// maxima.
// Verdict: ref.native broke (output-mismatch).
__global__ void max_dim0(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[8][32];
    int j = blockIdx.x * 32 + threadIdx.x;
    float m = -INFINITY;
    if (j < cols) {
        for (int i = threadIdx.y; i < rows; i += 8) {
            m = fmaxf(m, x[(long long)i * cols + j]);
        }
    }
    part[threadIdx.y][threadIdx.x] = m;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        for (int k = 1; k < 7; ++k) {
            m = fmaxf(m, part[k][threadIdx.x]);
        }
        y[j] = m;
    }
}