// Reference for task `scatter_add_rows`: adds rows of `src` into the rows of `out` that `ids`
// names (index_add along the first axis): out[ids[i]][d] += src[i][d] for i < n, d < dim, with
// 0 <= ids[i] < vocab; fp32, row-major. Several source rows may name the same target row, so the
// additions are atomic. One thread per source element. Default launch: grid ceil_div(n * dim,
// 256), block 256.
__global__ void scatter_add_rows(const float* src, const int* ids, float* out, int n, int dim, int vocab)
{
    long long e = (long long)blockIdx.x * 256 + threadIdx.x;
    if (e >= (long long)n * dim) {
        return;
    }
    long long i = e / dim;
    int d = (int)(e % dim);
    atomicAdd(&out[(long long)ids[i] * dim + d], src[e]);
}
