// softsign/fast: x / (1 + |x|) in one pass (float4 grid-stride loop, scalar tail and unaligned
// path). The module runs three PyTorch kernels (abs, add, divide), each reading and writing a
// full tensor; this kernel reads x once and writes out once.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__device__ __forceinline__ float softsign_of(float v)
{
    return v / (1.0f + fabsf(v));
}

__global__ void softsign(const float* x, float* out, int batch_size, int dim)
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
            v.x = softsign_of(v.x);
            v.y = softsign_of(v.y);
            v.z = softsign_of(v.z);
            v.w = softsign_of(v.w);
            o4[i] = v;
        }
        done = n4 << 2;
    }
    for (long long i = done + first; i < n; i += stride) {
        out[i] = softsign_of(x[i]);
    }
}
