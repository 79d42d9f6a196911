// Reference for task `nchw_to_nhwc`: the layout change of an image batch from channels-first to
// channels-last, fp32, spatial axes flattened: x is (n, c, hw), y is (n, hw, c),
// y[b][t][ch] = x[b][ch][t]. One thread per output element (writes coalesced, reads strided by
// hw). Default launch: grid ceil_div(n * hw * c, 256), block 256.
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
    y[e] = x[(b * c + ch) * hw + t];
}
