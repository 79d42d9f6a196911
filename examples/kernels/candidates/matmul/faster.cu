// matmul/faster: register blocking. A block of 256 threads computes a 64x64 tile of C, each
// thread a 4x4 sub-grid (rows ty + 16i, columns tx + 16j), stepping through k in slices of 16
// staged in shared memory (A's slice stored transposed, so both operands are read with
// broadcasts or consecutive addresses). 16 FMAs per 8 shared loads instead of the reference's
// 1 per 2. aorlta_launch fixes 256 blocks (one tile each at 1024 x 1024) and blocks loop over
// tiles with a grid stride, so any shape works; edges are zero-padded.
// Verdict: correct (a different summation order, within atol = rtol = 1e-3); ref.speedup faster
// (expected about 2-4x over the 16x16 tiled reference).
#define BM 64
#define BN 64
#define BK 16

__device__ unsigned int aorlta_launch[7] = {256, 1, 1, 256, 1, 1, 0};

__global__ void matmul(const float* a, const float* b, float* c, int m, int n, int k)
{
    __shared__ float as[BK][BM + 1];
    __shared__ float bs[BK][BN];
    int tid = threadIdx.x;
    int tx = tid % 16;
    int ty = tid / 16;
    int tiles_n = (n + BN - 1) / BN;
    int tiles = ((m + BM - 1) / BM) * tiles_n;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int row0 = (t / tiles_n) * BM;
        int col0 = (t % tiles_n) * BN;
        float acc[4][4] = {};
        for (int k0 = 0; k0 < k; k0 += BK) {
            for (int q = 0; q < 4; ++q) {
                int l = tid + 256 * q;
                int ar = l / BK;
                int ak = l % BK;
                int gr = row0 + ar;
                int gk = k0 + ak;
                as[ak][ar] = (gr < m && gk < k) ? a[(long long)gr * k + gk] : 0.0f;
                int bk = l / BN;
                int bc = l % BN;
                int gbk = k0 + bk;
                int gc = col0 + bc;
                bs[bk][bc] = (gbk < k && gc < n) ? b[(long long)gbk * n + gc] : 0.0f;
            }
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                float av[4];
                float bv[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    av[i] = as[kk][ty + 16 * i];
                    bv[i] = bs[kk][tx + 16 * i];
                }
#pragma unroll
                for (int i = 0; i < 4; ++i) {
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        acc[i][j] += av[i] * bv[j];
                    }
                }
            }
            __syncthreads();
        }
        for (int i = 0; i < 4; ++i) {
            int r = row0 + ty + 16 * i;
            for (int j = 0; j < 4; ++j) {
                int col = col0 + tx + 16 * j;
                if (r < m && col < n) {
                    c[(long long)r * n + col] = acc[i][j];
                }
            }
        }
    }
}
