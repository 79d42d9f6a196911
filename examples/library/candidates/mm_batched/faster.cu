// mm_batched/faster: every matrix of the batch cut into 64 x 64 output tiles, one tile per block
// of 256 threads at a time, 4 x 4 outputs per thread in registers, k sliced by 16 through shared
// memory. aorlta_launch fixes 528 blocks looping over (matrix, tile) with a grid stride, so any
// batch and shape work.
// Verdict: correct; ref.speedup faster (s=1.51 on the H200 over the 16 x 16 tiled reference).
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

__global__ void mm_batched(const float* a, const float* b, float* c, int batch, int m, int n, int k)
{
    int tiles_n = (n + 63) / 64;
    int per = ((m + 63) / 64) * tiles_n;
    long long tiles = (long long)per * batch;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
        long long z = t / per;
        int r = (int)(t % per);
        tile_product<64, 64, false>(a + z * m * k, b + z * k * n, c + z * m * n, m, n, k,
                                    (r / tiles_n) * 64, (r % tiles_n) * 64);
    }
}
