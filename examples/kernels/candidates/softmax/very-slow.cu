// softmax/very-slow: the reference's whole computation repeated 1000 times per thread. Each
// repetition reads the row as x + salt, where salt = sum * 0.0f from the repetition before: always
// zero, but the compiler cannot know it (no fast-math), so no repetition can be dropped, and
// x + 0 is exactly x. About 1000x the reference.
// Verdict: correct; ref.speedup too-slow-to-measure in the default budget, not-faster at about
// 0.001 with a larger one (expect about a second per launch at 4096 x 1024).
__global__ void softmax(const float* in, float* out, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) {
        return;
    }
    const float* x = in + (long long)r * cols;
    float* y = out + (long long)r * cols;
    float salt = 0.0f;
    for (int rep = 0; rep < 1000; ++rep) {
        float m = -INFINITY;
        for (int j = 0; j < cols; ++j) {
            m = fmaxf(m, x[j] + salt);
        }
        float sum = 0.0f;
        for (int j = 0; j < cols; ++j) {
            sum += expf(x[j] + salt - m);
        }
        for (int j = 0; j < cols; ++j) {
            y[j] = expf(x[j] + salt - m) / sum;
        }
        salt = sum * 0.0f;
    }
}
