// Reference for task `embedding_gather`: rows of a table picked by index (an embedding lookup):
// out[i][d] = table[ids[i]][d] for i < n, d < dim, with 0 <= ids[i] < vocab; fp32, row-major.
// One thread per output element (coalesced writes; reads coalesced within a row).
// Default launch: grid ceil_div(n * dim, 256), block 256.
__global__ void embedding_gather(const float* table, const int* ids, float* out, int n, int dim, int vocab)
{
    long long e = (long long)blockIdx.x * 256 + threadIdx.x;
    if (e >= (long long)n * dim) {
        return;
    }
    long long i = e / dim;
    int d = (int)(e % dim);
    out[e] = table[(long long)ids[i] * dim + d];
}
