// Reference for task `softmax`: row-wise softmax of a rows x cols row-major matrix,
// out[r][j] = exp(in[r][j] - max_r) / sum_k exp(in[r][k] - max_r).
// Naive: one thread per row, three passes over the row (max, sum, write). Numerically stable
// (subtracts the row max). Default launch: grid ceil_div(rows, 256), block 256.
__global__ void softmax(const float* in, float* out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    const float* x = in + (long long)r * cols;
    float* y = out + (long long)r * cols;
    float m = -INFINITY;
    for (int j = 0; j < cols; ++j) {
        m = fmaxf(m, x[j]);
    }
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) {
        sum += expf(x[j] - m);
    }
    for (int j = 0; j < cols; ++j) {
        y[j] = expf(x[j] - m) / sum;
    }
}
