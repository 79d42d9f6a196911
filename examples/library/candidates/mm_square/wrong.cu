// mm_square/wrong: the reference with one mistake: it reads the B tile transposed (a classic
// indexing slip).
// Verdict: ref.native broke (output-mismatch).
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
            acc += as[threadIdx.y][p] * bs[threadIdx.x][p];
        }
        __syncthreads();
    }
    if (row < n && col < n) {
        c[(long long)row * n + col] = acc;
    }
}