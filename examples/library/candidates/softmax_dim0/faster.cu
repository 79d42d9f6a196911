// softmax_dim0/faster: each column shared by 8 threads instead of one: a block of 32 x 8 threads covers 32
// columns, each thread keeps a running (max, sum of exponentials) over every 8th row (online
// softmax: the column is read twice instead of three times), the 8 pairs are merged in shared
// memory, then the threads write their rows. Eight times as many loads in flight as the
// reference, whose cols / 256 blocks do not cover the GPU. aorlta_launch fixes 2112 blocks
// looping over the 32-column groups with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (s=3.85 on the H200 over one thread per column).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 32, 8, 1, 0};

__global__ void softmax_dim0(const float* x, float* y, int rows, int cols)
{
    __shared__ float pm[8][33];
    __shared__ float ps[8][33];
    const int groups = (cols + 31) / 32;
    for (int g = blockIdx.x; g < groups; g += gridDim.x) {
        int j = g * 32 + threadIdx.x;
        float m = -INFINITY, s = 0.0f;
        if (j < cols) {
            for (int i = threadIdx.y; i < rows; i += 8) {
                float v = x[(long long)i * cols + j];
                if (v > m) {
                    s = s * expf(m - v) + 1.0f;
                    m = v;
                } else {
                    s += expf(v - m);
                }
            }
        }
        pm[threadIdx.y][threadIdx.x] = m;
        ps[threadIdx.y][threadIdx.x] = s;
        __syncthreads();
        float cm = -INFINITY;
        for (int k = 0; k < 8; ++k) {
            cm = fmaxf(cm, pm[k][threadIdx.x]);
        }
        float cs = 0.0f;
        for (int k = 0; k < 8; ++k) {
            if (ps[k][threadIdx.x] > 0.0f) {
                cs += ps[k][threadIdx.x] * expf(pm[k][threadIdx.x] - cm);
            }
        }
        __syncthreads();
        if (j < cols) {
            for (int i = threadIdx.y; i < rows; i += 8) {
                y[(long long)i * cols + j] = expf(x[(long long)i * cols + j] - cm) / cs;
            }
        }
    }
}
