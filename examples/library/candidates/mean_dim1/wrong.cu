// mean_dim1/wrong: the reference with one mistake: it drops the last position of the sequence.
// Verdict: ref.native broke (output-mismatch).
__global__ void mean_dim1(const float* x, float* y, int batch, int len, int dim)
{
    int d = blockIdx.x * 256 + threadIdx.x;
    int b = blockIdx.y;
    if (d >= dim) {
        return;
    }
    const float* xb = x + (long long)b * len * dim + d;
    float s = 0.0f;
    for (int t = 0; t < len - 1; ++t) {
        s += xb[(long long)t * dim];
    }
    y[(long long)b * dim + d] = s / (float)len;
}