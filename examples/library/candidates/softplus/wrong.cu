// softplus/wrong: the reference with one mistake: it uses the naive formula, which overflows to
// inf for x > 88.7.
// Verdict: ref.native broke (output-mismatch).
__global__ void softplus(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = logf(1.0f + expf(v));
    }
}