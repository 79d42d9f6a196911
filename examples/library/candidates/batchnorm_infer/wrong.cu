// batchnorm_infer/wrong: the reference with one mistake: it divides by the variance instead of
// the standard deviation.
// Verdict: ref.native broke (output-mismatch).
__global__ void batchnorm_infer(const float* x, const float* mean, const float* var, const float* gamma,
                                const float* beta, float* y, int batch, int ch, int hw)
{
    long long i = (long long)blockIdx.x * 256 + threadIdx.x;
    long long total = (long long)batch * ch * hw;
    if (i >= total) {
        return;
    }
    int c = (int)((i / hw) % ch);
    y[i] = (x[i] - mean[c]) / (var[c] + 1e-5f) * gamma[c] + beta[c];
}