// Reference for task `mean_dim1`: the mean along the middle axis of a (batch, len, dim) fp32
// tensor, y[b][d] = (1 / len) * sum over t of x[b][t][d] (pooling over a sequence).
// One thread per output, summing down its column (threads along d, so reads are coalesced).
// Default launch: grid (ceil_div(dim, 256), batch), block 256.
__global__ void mean_dim1(const float* x, float* y, int batch, int len, int dim)
{
    int d = blockIdx.x * 256 + threadIdx.x;
    int b = blockIdx.y;
    if (d >= dim) {
        return;
    }
    const float* xb = x + (long long)b * len * dim + d;
    float s = 0.0f;
    for (int t = 0; t < len; ++t) {
        s += xb[(long long)t * dim];
    }
    y[(long long)b * dim + d] = s / (float)len;
}
