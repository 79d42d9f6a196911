// matmul/very-slow: the reference's tiled computation repeated 1000 times per block. Each
// repetition loads A as a + salt, where salt = acc * 0.0f from the repetition before: always
// zero, but the compiler cannot know it (no fast-math), so no repetition can be dropped, and
// a + 0 is exactly a. About 1000x the reference.
// Verdict: correct; ref.speedup too-slow-to-measure in the default budget, not-faster at about
// 0.001 with a larger one (expect a few tenths of a second per launch at 1024^3).
#define TILE 16

__global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float salt = 0.0f;
    float acc = 0.0f;
    for (int rep = 0; rep < 1000; ++rep) {
        acc = 0.0f;
        for (int p0 = 0; p0 < k; p0 += TILE) {
            int pa = p0 + threadIdx.x;
            int pb = p0 + threadIdx.y;
            as[threadIdx.y][threadIdx.x] =
                (row < m && pa < k) ? a[(long long)row * k + pa] + salt : 0.0f;
            bs[threadIdx.y][threadIdx.x] = (pb < k && col < n) ? b[(long long)pb * n + col] : 0.0f;
            __syncthreads();
            for (int p = 0; p < TILE; ++p) {
                acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
            }
            __syncthreads();
        }
        salt = acc * 0.0f;
    }
    if (row < m && col < n) {
        c[(long long)row * n + col] = acc;
    }
}
