// softmax/self: the reference kernel, its code unchanged (only this comment differs).
// Verdict: correct (ref.native clean); ref.speedup not-faster with s about 1.00 at ratio 1.1.
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
