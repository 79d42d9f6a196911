// mingptnewgelu/fast: the tanh form of GELU in one pass (float4 grid-stride loop, scalar tail and
// unaligned path). The module is a chain of about eight PyTorch element-wise kernels (the cube,
// the scale, the sum, tanh, ...), each reading and writing a full tensor; this kernel reads x once
// and writes out once.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__device__ __forceinline__ float new_gelu(float v)
{
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * (v * v * v))));
}

__global__ void mingptnewgelu(const float* x, float* out, int batch_size)
{
    const long long n = (long long)batch_size * batch_size;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long done = 0;
    if ((((unsigned long long)x | (unsigned long long)out) & 15) == 0) {
        const long long n4 = n >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float4* o4 = reinterpret_cast<float4*>(out);
        for (long long i = first; i < n4; i += stride) {
            float4 v = __ldg(x4 + i);
            v.x = new_gelu(v.x);
            v.y = new_gelu(v.y);
            v.z = new_gelu(v.z);
            v.w = new_gelu(v.w);
            o4[i] = v;
        }
        done = n4 << 2;
    }
    for (long long i = done + first; i < n; i += stride) {
        out[i] = new_gelu(x[i]);
    }
}
