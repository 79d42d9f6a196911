// max_dim0/faster: blocks of 32 x 32 threads instead of 32 x 8: each column is shared by 32
// threads (every 32nd row each) instead of 8, so four times as many loads are in flight, then
// the 32 partial maxima are combined with a shared-memory tree. aorlta_launch fixes 264 blocks
// looping over the 32-column groups with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (s=2.52 on the H200: the reference keeps too few loads
// in flight to use the memory bandwidth when cols / 32 blocks barely cover the GPU).
__device__ unsigned int aorlta_launch[7] = {264, 1, 1, 32, 32, 1, 0};

__global__ void max_dim0(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32][33];
    const int groups = (cols + 31) / 32;
    for (int g = blockIdx.x; g < groups; g += gridDim.x) {
        int j = g * 32 + threadIdx.x;
        float m = -INFINITY;
        if (j < cols) {
            const float* xc = x + j;
            int i = threadIdx.y;
            for (; i + 96 < rows; i += 128) {
                float a = xc[(long long)i * cols];
                float b = xc[(long long)(i + 32) * cols];
                float c = xc[(long long)(i + 64) * cols];
                float d = xc[(long long)(i + 96) * cols];
                m = fmaxf(m, fmaxf(fmaxf(a, b), fmaxf(c, d)));
            }
            for (; i < rows; i += 32) {
                m = fmaxf(m, xc[(long long)i * cols]);
            }
        }
        part[threadIdx.y][threadIdx.x] = m;
        __syncthreads();
        for (int half = 16; half > 0; half /= 2) {
            if (threadIdx.y < half) {
                part[threadIdx.y][threadIdx.x] = fmaxf(part[threadIdx.y][threadIdx.x], part[threadIdx.y + half][threadIdx.x]);
            }
            __syncthreads();
        }
        if (threadIdx.y == 0 && j < cols) {
            y[j] = part[0][threadIdx.x];
        }
        __syncthreads();
    }
}
