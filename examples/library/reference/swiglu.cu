// Reference for task `swiglu`: the SwiGLU gate, y = silu(a) * b = a / (1 + exp(-a)) * b,
// elementwise over n fp32 pairs. One thread per element (coalesced).
// Default launch: grid ceil_div(n, 256), block 256.
__global__ void swiglu(const float* a, const float* b, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i];
        y[i] = v / (1.0f + expf(-v)) * b[i];
    }
}
