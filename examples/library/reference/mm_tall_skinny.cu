// Reference for task `mm_tall_skinny`: C = A * B with A tall (m x k), B small (k x n, n small),
// all fp32 row-major. The textbook shared-memory kernel: 16 x 16 tiles, one output per thread.
// Default launch: grid (ceil_div(n, 16), ceil_div(m, 16)), block (16, 16).
#define TILE 16

__global__ void mm_tall_skinny(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
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
