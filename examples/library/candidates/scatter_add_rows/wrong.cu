// scatter_add_rows/wrong: the reference with one mistake: it adds without atomics, so additions
// to a repeated row are lost.
// Verdict: ref.native broke (output-mismatch).
__global__ void scatter_add_rows(const float* src, const int* ids, float* out, int n, int dim, int vocab)
{
    long long e = (long long)blockIdx.x * 256 + threadIdx.x;
    if (e >= (long long)n * dim) {
        return;
    }
    long long i = e / dim;
    int d = (int)(e % dim);
    out[(long long)ids[i] * dim + d] += src[e];
}