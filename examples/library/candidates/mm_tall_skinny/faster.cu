// mm_tall_skinny/faster: 128 x 32 output tiles (the whole of a narrow B's width in one tile) per
// block of 256 threads, 4 x 4 outputs per thread in registers, k sliced by 16 through shared
// memory. A is read once per 32 columns of C, each shared value feeds four products. aorlta_launch
// fixes 528 blocks looping over the tiles with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (s=1.23 on the H200 over the 16 x 16 tiled reference).
__device__ unsigned int aorlta_launch[7] = {528, 1, 1, 256, 1, 1, 0};

// Register-blocked tile: BM x BN outputs per block of 256 threads, each thread 4 x 4 outputs
// kept in registers, k sliced by 16 through shared memory (zero-filled past the edges).
// BT: B is stored n x k (C = A * B^T) instead of k x n.
#define BK 16

template <int BM, int BN, bool BT>
__device__ __forceinline__ void tile_product(const float* __restrict__ a, const float* __restrict__ b,
                                             float* __restrict__ c, int m, int n, int k, int tm, int tn)
{
    __shared__ float as[BK][BM + 4];
    __shared__ float bs[BK][BN + 4];
    const int tid = threadIdx.x;
    const int tx = tid % (BN / 4);
    const int ty = tid / (BN / 4);
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            acc[i][j] = 0.0f;
        }
    }
    for (int p0 = 0; p0 < k; p0 += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            int i = e / BK, p = e % BK;
            int gi = tm + i, gp = p0 + p;
            as[p][i] = (gi < m && gp < k) ? a[(long long)gi * k + gp] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            int p, j;
            if (BT) {
                j = e / BK;
                p = e % BK;
            } else {
                p = e / BN;
                j = e % BN;
            }
            int gj = tn + j, gp = p0 + p;
            float v = 0.0f;
            if (gj < n && gp < k) {
                v = BT ? b[(long long)gj * k + gp] : b[(long long)gp * n + gj];
            }
            bs[p][j] = v;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            float ar[4], br[4];
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                ar[r] = as[p][ty * 4 + r];
                br[r] = bs[p][tx * 4 + r];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i) {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    acc[i][j] += ar[i] * br[j];
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int gi = tm + ty * 4 + i;
        if (gi >= m) {
            continue;
        }
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int gj = tn + tx * 4 + j;
            if (gj < n) {
                c[(long long)gi * n + gj] = acc[i][j];
            }
        }
    }
}

__global__ void mm_tall_skinny(const float* a, const float* b, float* c, int m, int n, int k)
{
    int tiles_n = (n + 31) / 32;
    int tiles = ((m + 127) / 128) * tiles_n;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        tile_product<128, 32, false>(a, b, c, m, n, k, (t / tiles_n) * 128, (t % tiles_n) * 32);
    }
}
