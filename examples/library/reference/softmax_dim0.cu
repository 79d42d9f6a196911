// Reference for task `softmax_dim0`: softmax along the first axis of a rows x cols fp32 matrix
// (each column normalised over the rows), stable:
// y[i][j] = exp(x[i][j] - m_j) / sum_k exp(x[k][j] - m_j), m_j = max_k x[k][j].
// One thread per column, three passes down it (max, sum, write); threads run along a row, so
// every read is coalesced. Default launch: grid ceil_div(cols, 256), block 256.
__global__ void softmax_dim0(const float* x, float* y, int rows, int cols)
{
    int j = blockIdx.x * 256 + threadIdx.x;
    if (j >= cols) {
        return;
    }
    float m = -INFINITY;
    for (int i = 0; i < rows; ++i) {
        m = fmaxf(m, x[(long long)i * cols + j]);
    }
    float s = 0.0f;
    for (int i = 0; i < rows; ++i) {
        s += expf(x[(long long)i * cols + j] - m);
    }
    for (int i = 0; i < rows; ++i) {
        y[(long long)i * cols + j] = expf(x[(long long)i * cols + j] - m) / s;
    }
}
