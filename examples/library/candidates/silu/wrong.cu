// silu/wrong: the reference with one mistake: it drops the minus sign in the exponent.
// Verdict: ref.native broke (output-mismatch).
__global__ void silu(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (1.0f + expf(v));
    }
}