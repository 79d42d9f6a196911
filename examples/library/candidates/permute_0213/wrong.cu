// permute_0213/wrong: the reference with one mistake: it copies without permuting.
// Verdict: ref.native broke (output-mismatch).
__global__ void permute_0213(const float* x, float* y, int b, int s, int h, int d)
{
    long long e = (long long)blockIdx.x * 256 + threadIdx.x;
    long long total = (long long)b * s * h * d;
    if (e >= total) {
        return;
    }
    int di = (int)(e % d);
    long long r = e / d;
    int si = (int)(r % s);
    r /= s;
    int hi = (int)(r % h);
    long long bi = r / h;
    y[e] = x[((bi * h + hi) * s + si) * d + di];
}