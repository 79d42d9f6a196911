// rmsnorm/fast: one thread per position (b, i, j): its 64 features, dim1 * dim1 floats apart
// (coalesced across the threads of a warp), are loaded once into registers, squared and summed,
// and divided by the root mean square. One read of x and one write of out; the module runs the
// square, the mean over the features, the add, the square root and the division as separate
// PyTorch kernels.
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
        }
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            sum += v[f] * v[f];
        }
        const float rms = sqrtf(sum / FEATURES + 1e-5f);
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            out[at + f * plane] = v[f] / rms;
        }
    }
}
