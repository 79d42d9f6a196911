// Wrong: the module's scale is 2.5, not 2.
__global__ void scaled_tanh(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tanhf(2.0f * x[i]);
}
