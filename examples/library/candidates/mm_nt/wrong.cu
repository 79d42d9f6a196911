// mm_nt/wrong: the reference with one mistake: it stores B's tile without transposing it.
// Verdict: ref.native broke (output-mismatch).
#define TILE 16

__global__ void mm_nt(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    int brow = blockIdx.x * TILE + threadIdx.y;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        int kk = t + threadIdx.x;
        as[threadIdx.y][threadIdx.x] = (row < m && kk < k) ? a[(long long)row * k + kk] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (brow < n && kk < k) ? b[(long long)brow * k + kk] : 0.0f;
        __syncthreads();
        for (int p = 0; p < TILE; ++p) {
            acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[(long long)row * n + col] = acc;
    }
}