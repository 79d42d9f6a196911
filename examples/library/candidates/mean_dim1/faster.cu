// mean_dim1/faster: the sequence axis split across threads: a block of 32 x 8 threads covers 32
// columns of one batch entry, each thread summing every 8th position (reads coalesced along d),
// then the 8 partial sums are combined in shared memory. Eight times as many threads and loads
// in flight as the reference's one thread per output. aorlta_launch fixes 2112 blocks looping
// over (batch entry, 32-column group) with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (s=1.90 on the H200: the reference's 32768 threads each
// walk 1024 dependent additions, too few loads in flight to use the memory bandwidth).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 32, 8, 1, 0};

__global__ void mean_dim1(const float* x, float* y, int batch, int len, int dim)
{
    __shared__ float part[8][33];
    const int groups = (dim + 31) / 32;
    const long long items = (long long)groups * batch;
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
        int b = (int)(item / groups);
        int d = (int)(item % groups) * 32 + threadIdx.x;
        float s = 0.0f;
        if (d < dim) {
            const float* xb = x + (long long)b * len * dim + d;
            for (int t = threadIdx.y; t < len; t += 8) {
                s += xb[(long long)t * dim];
            }
        }
        part[threadIdx.y][threadIdx.x] = s;
        __syncthreads();
        if (threadIdx.y == 0 && d < dim) {
            float total = 0.0f;
            for (int k = 0; k < 8; ++k) {
                total += part[k][threadIdx.x];
            }
            y[(long long)b * dim + d] = total / (float)len;
        }
        __syncthreads();
    }
}
