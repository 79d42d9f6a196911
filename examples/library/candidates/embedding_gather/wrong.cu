// embedding_gather/wrong: the reference with one mistake: it reads the table as if it were
// column-major.
// Verdict: ref.native broke (output-mismatch).
__global__ void embedding_gather(const float* table, const int* ids, float* out, int n, int dim, int vocab)
{
    long long e = (long long)blockIdx.x * 256 + threadIdx.x;
    if (e >= (long long)n * dim) {
        return;
    }
    long long i = e / dim;
    int d = (int)(e % dim);
    out[e] = table[(long long)d * vocab + ids[i]];
}