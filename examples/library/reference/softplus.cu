// Reference for task `softplus`: y = log(1 + exp(x)) elementwise over n fp32 values, in the
// stable form max(x, 0) + log1p(exp(-|x|)), which neither overflows for large x nor loses the
// small values for very negative x. One thread per element (coalesced).
// Default launch: grid ceil_div(n, 256), block 256.
__global__ void softplus(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = fmaxf(v, 0.0f) + log1pf(expf(-fabsf(v)));
    }
}
