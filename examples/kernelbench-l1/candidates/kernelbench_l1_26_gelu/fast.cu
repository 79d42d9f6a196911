// gelu/fast: GELU (the erf form the module uses) in one pass: float4 loads and stores over a
// grid-stride loop on one full wave of blocks, a scalar loop for the tail and for unaligned
// pointers. The module is one PyTorch kernel doing the same work, so this kernel can only match it.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__device__ __forceinline__ float gelu_erf(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__global__ void gelu(const float* x, float* out, int batch_size, int dim)
{
    const long long n = (long long)batch_size * dim;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long done = 0;
    if ((((unsigned long long)x | (unsigned long long)out) & 15) == 0) {
        const long long n4 = n >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float4* o4 = reinterpret_cast<float4*>(out);
        for (long long i = first; i < n4; i += stride) {
            float4 v = __ldg(x4 + i);
            v.x = gelu_erf(v.x);
            v.y = gelu_erf(v.y);
            v.z = gelu_erf(v.z);
            v.w = gelu_erf(v.w);
            o4[i] = v;
        }
        done = n4 << 2;
    }
    for (long long i = done + first; i < n; i += stride) {
        out[i] = gelu_erf(x[i]);
    }
}
