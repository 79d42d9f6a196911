// Reference for task `mm_square`: C = A * B for n x n fp32 matrices, row-major.
// The textbook shared-memory kernel: 16 x 16 tiles of A and B staged in shared memory, one
// output per thread, fp32 accumulation in the order p = 0, 1, ..., n-1.
// Default launch: grid (ceil_div(n, 16), ceil_div(n, 16)), block (16, 16).
#define TILE 16

__global__ void mm_square(const float* a, const float* b, float* c, int n)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        int ak = t + threadIdx.x;
        int bk = t + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < n && ak < n) ? a[(long long)row * n + ak] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (col < n && bk < n) ? b[(long long)bk * n + col] : 0.0f;
        __syncthreads();
        for (int p = 0; p < TILE; ++p) {
            acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[(long long)row * n + col] = acc;
    }
}
