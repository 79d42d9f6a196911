// logsoftmax_dim0/wrong: the reference with one mistake: it subtracts the log of the mean instead
// of the sum.
// Verdict: ref.native broke (output-mismatch).
__global__ void logsoftmax_dim0(const float* x, float* y, int rows, int cols)
{
    int j = blockIdx.x * 256 + threadIdx.x;
    if (j >= cols) {
        return;
    }
    float m = -INFINITY;
    for (int i = 0; i < rows; ++i) {
        m = fmaxf(m, x[(long long)i * cols + j]);
    }
    float s = 0.0f;
    for (int i = 0; i < rows; ++i) {
        s += expf(x[(long long)i * cols + j] - m);
    }
    float lse = logf(s / (float)rows);
    for (int i = 0; i < rows; ++i) {
        y[(long long)i * cols + j] = (x[(long long)i * cols + j] - m) - lse;
    }
}