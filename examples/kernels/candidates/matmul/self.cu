// matmul/self: the reference kernel, its code unchanged (only this comment differs).
// Verdict: correct (ref.native clean); ref.speedup not-faster with s about 1.00 at ratio 1.1.
#define TILE 16

__global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
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
