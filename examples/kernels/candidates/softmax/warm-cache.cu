// softmax/warm-cache: the reference kernel's code, submitted as a candidate on the one task whose
// timed working set fits in L2 (4096 x 1024 floats in and out = 32 MiB; an H200 has about
// 50 MiB of L2). Run right after the reference on the same input, or right after the inputs
// were copied to the device (a host-to-device copy can leave the lines it wrote in L2), it finds
// its input already in L2 and runs faster than a cold reference: a harness that does not flush
// L2 before every timed launch, or always runs the candidate second, would call it faster than
// itself.
// Verdict: correct; ref.speedup not-faster at about 1.0 at ratio 1.1, the same as softmax/self
// (every launch starts with a cold L2 and the order within a pair is random).
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
