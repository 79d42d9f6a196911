// swish/fast: x * sigmoid(x) in one pass (float4 grid-stride loop, scalar tail and unaligned
// path). The module runs two PyTorch kernels (sigmoid, then the product) and so reads x twice and
// writes a full intermediate; this kernel reads x once and writes out once.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__device__ __forceinline__ float swish_of(float v)
{
    return v * (1.0f / (1.0f + expf(-v)));
}

__global__ void swish(const float* x, float* out, int batch_size, int dim)
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
            v.x = swish_of(v.x);
            v.y = swish_of(v.y);
            v.z = swish_of(v.z);
            v.w = swish_of(v.w);
            o4[i] = v;
        }
        done = n4 << 2;
    }
    for (long long i = done + first; i < n; i += stride) {
        out[i] = swish_of(x[i]);
    }
}
