// nchw_to_nhwc/wrong: the reference with one mistake: it copies without permuting.
// Verdict: ref.native broke (output-mismatch).
__global__ void nchw_to_nhwc(const float* x, float* y, int n, int c, int hw)
{
    long long e = (long long)blockIdx.x * 256 + threadIdx.x;
    long long total = (long long)n * c * hw;
    if (e >= total) {
        return;
    }
    int ch = (int)(e % c);
    long long r = e / c;
    int t = (int)(r % hw);
    long long b = r / hw;
    y[e] = x[(b * hw + t) * c + ch];
}