// softmax_dim0/wrong: the reference with one mistake: it leaves the maximum out of the sum (the
// normaliser is off, and overflows).
// Verdict: ref.native broke (output-mismatch).
__global__ void softmax_dim0(const float* x, float* y, int rows, int cols)
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
        s += expf(x[(long long)i * cols + j]);
    }
    for (int i = 0; i < rows; ++i) {
        y[(long long)i * cols + j] = expf(x[(long long)i * cols + j] - m) / s;
    }
}