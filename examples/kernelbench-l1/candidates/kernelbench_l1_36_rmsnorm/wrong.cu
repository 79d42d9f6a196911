// rmsnorm/wrong: the fast kernel without the module's eps (1e-5) under the square root. On the
// typical draw the mean of the squares is near 1/3 and eps changes the result by about 1.5e-5
// of it, inside the tolerance; where the features are small (values near the bottom of the
// domain, magnitudes spread down towards zero) the mean of the squares is comparable to eps or
// far below it, and the result is wrong.
__device__ unsigned int aorlta_launch[7] = {264, 1, 1, 256, 1, 1, 0};

#define FEATURES 64

__global__ void __launch_bounds__(256, 2) rmsnorm(const float* x, float* out, int batch_size, int dim1)
{
    const long long plane = (long long)dim1 * dim1;
    const long long positions = (long long)batch_size * plane;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += stride) {
        const long long b = p / plane;
        const long long at = b * FEATURES * plane + (p - b * plane);
        float v[FEATURES];
        float sum = 0.0f;
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            v[f] = __ldg(x + at + f * plane);
            sum += v[f] * v[f];
        }
        const float rms = sqrtf(sum / FEATURES);
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            out[at + f * plane] = v[f] / rms;
        }
    }
}
