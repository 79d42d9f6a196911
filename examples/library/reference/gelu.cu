// Reference for task `gelu`: the exact GELU, y = 0.5 * x * (1 + erf(x / sqrt(2))), elementwise
// over n fp32 values. One thread per element (coalesced), erff from the CUDA math library.
// Default launch: grid ceil_div(n, 256), block 256.
__global__ void gelu(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
