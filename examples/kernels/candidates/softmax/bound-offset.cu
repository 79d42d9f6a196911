// softmax/bound-offset: right on the typical draw, wrong on inputs the task allows. It leans on
// the documented bound (|x| <= 100) instead of the row maximum: exp(x - 100) cannot overflow, and
// on the typical law every row's maximum sits near 100, so the outputs match. A row whose values
// all lie far below 100 (the bottom of the domain, a narrow window anywhere, a constant run)
// underflows to 0 / 0. Verdict: ref.native broke output-mismatch (only the input families find it).
__global__ void softmax(const float* in, float* out, int rows, int cols)
{
    int lane = threadIdx.x % 32;
    int warps = gridDim.x * (blockDim.x / 32);
    for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
        const float* x = in + (long long)r * cols;
        float* y = out + (long long)r * cols;
        float sum = 0.0f;
        for (int j = lane; j < cols; j += 32) {
            sum += expf(x[j] - 100.0f);
        }
        for (int o = 16; o > 0; o /= 2) {
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
        }
        for (int j = lane; j < cols; j += 32) {
            y[j] = expf(x[j] - 100.0f) / sum;
        }
    }
}

// One warp per row (a grid stride over rows), eight rows per block of 256 threads.
__device__ unsigned int aorlta_launch[7] = {512, 1, 1, 256, 1, 1, 0};
