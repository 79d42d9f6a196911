// Reference for task `permute_0213`: swaps the two middle axes of a 4-D fp32 tensor (splitting
// attention heads): x is (b, s, h, d), y is (b, h, s, d), y[bi][hi][si][di] = x[bi][si][hi][di].
// One thread per output element, its coordinates found by division (reads and writes both
// coalesced along d). Default launch: grid ceil_div(b * s * h * d, 256), block 256.
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
    y[e] = x[((bi * s + si) * h + hi) * d + di];
}
