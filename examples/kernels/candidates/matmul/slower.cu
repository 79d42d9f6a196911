// matmul/slower: the reference's 16x16 tiled kernel, run twice per block: for its own tile of C
// and for the tile mirrored through the centre of the grid, so every element of C is computed
// and written twice (same value).
// Verdict: correct; ref.speedup not-faster with s about 0.5 (expected 0.4-0.7).
#define TILE 16

__global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    unsigned int tiles_x[2] = {blockIdx.x, gridDim.x - 1 - blockIdx.x};
    unsigned int tiles_y[2] = {blockIdx.y, gridDim.y - 1 - blockIdx.y};
    for (int t = 0; t < 2; ++t) {
        int row = tiles_y[t] * TILE + threadIdx.y;
        int col = tiles_x[t] * TILE + threadIdx.x;
        float acc = 0.0f;
        for (int p0 = 0; p0 < k; p0 += TILE) {
            int pa = p0 + threadIdx.x;
            int pb = p0 + threadIdx.y;
            as[threadIdx.y][threadIdx.x] = (row < m && pa < k) ? a[(long long)row * k + pa] : 0.0f;
            bs[threadIdx.y][threadIdx.x] = (pb < k && col < n) ? b[(long long)pb * n + col] : 0.0f;
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
}
