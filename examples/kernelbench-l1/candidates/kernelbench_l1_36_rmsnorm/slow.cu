// rmsnorm/slow: right but slow: 264 blocks of 128 threads, one position per thread per iteration,
// the features read twice (once for the sum of squares, once for the division) in rolled loops:
// one load in flight per thread.
__device__ unsigned int aorlta_launch[7] = {264, 1, 1, 128, 1, 1, 0};

#define FEATURES 64

__global__ void rmsnorm(const float* x, float* out, int batch_size, int dim1)
{
    const long long plane = (long long)dim1 * dim1;
    const long long positions = (long long)batch_size * plane;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += stride) {
        const long long b = p / plane;
        const long long at = b * FEATURES * plane + (p - b * plane);
        float sum = 0.0f;
#pragma unroll 1
        for (int f = 0; f < FEATURES; ++f) {
            float v = x[at + f * plane];
            sum += v * v;
        }
        const float rms = sqrtf(sum / FEATURES + 1e-5f);
#pragma unroll 1
        for (int f = 0; f < FEATURES; ++f) {
            out[at + f * plane] = x[at + f * plane] / rms;
        }
    }
}
