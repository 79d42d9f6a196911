// Reference for task `logsoftmax_dim0`: log-softmax along the first axis of a rows x cols fp32
// matrix (each column over the rows), stable:
// y[i][j] = x[i][j] - m_j - log(sum_k exp(x[k][j] - m_j)), m_j = max_k x[k][j].
// One thread per column, three passes down it (max, sum, write), reads coalesced along a row.
// Default launch: grid ceil_div(cols, 256), block 256.
__global__ void logsoftmax_dim0(const float* x, float* y, int rows, int cols)
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
    float lse = logf(s);
    for (int i = 0; i < rows; ++i) {
        y[(long long)i * cols + j] = (x[(long long)i * cols + j] - m) - lse;
    }
}
