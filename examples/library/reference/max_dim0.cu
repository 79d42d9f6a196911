// Reference for task `max_dim0`: the maximum along the first axis, y[j] = max over i of x[i][j],
// for a rows x cols fp32 matrix, row-major. A block of 32 x 8 threads covers 32 columns: each
// thread takes every 8th row of its column (reads coalesced along the row), then the 8 partial
// maxima are combined in shared memory. Default launch: grid ceil_div(cols, 32), block (32, 8).
__global__ void max_dim0(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[8][32];
    int j = blockIdx.x * 32 + threadIdx.x;
    float m = -INFINITY;
    if (j < cols) {
        for (int i = threadIdx.y; i < rows; i += 8) {
            m = fmaxf(m, x[(long long)i * cols + j]);
        }
    }
    part[threadIdx.y][threadIdx.x] = m;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        for (int k = 1; k < 8; ++k) {
            m = fmaxf(m, part[k][threadIdx.x]);
        }
        y[j] = m;
    }
}
