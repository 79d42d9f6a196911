// mm_tall_skinny/wrong: the reference with one mistake: it drops the last partial tile of k, so
// it is right only when k is a multiple of 16 (the odd sizes catch it).
// Verdict: ref.native broke (output-mismatch).
#define TILE 16

__global__ void mm_tall_skinny(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t + TILE <= k; t += TILE) {
        int ak = t + threadIdx.x;
        int bk = t + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? a[(long long)row * k + ak] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (col < n && bk < k) ? b[(long long)bk * n + col] : 0.0f;
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