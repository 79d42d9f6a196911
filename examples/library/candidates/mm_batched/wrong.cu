// mm_batched/wrong: the reference with one mistake: it multiplies every A[z] by the first B.
// Verdict: ref.native broke (output-mismatch).
#define TILE 16

__global__ void mm_batched(const float* a, const float* b, float* c, int batch, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    long long z = blockIdx.z;
    const float* A = a + z * m * k;
    const float* B = b;
    float* C = c + z * m * n;
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        int ak = t + threadIdx.x;
        int bk = t + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < m && ak < k) ? A[(long long)row * k + ak] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (col < n && bk < k) ? B[(long long)bk * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < TILE; ++p) {
            acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        C[(long long)row * n + col] = acc;
    }
}