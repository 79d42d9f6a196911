// gelu/wrong: the fast kernel without its scalar tail: elements past the last whole float4 are
// never written. Right whenever batch_size * dim is a multiple of 4 (the timed size and 512 x 384);
// at 513 x 385 the last element keeps the harness's sentinel.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__device__ __forceinline__ float gelu_erf(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__global__ void gelu(const float* x, float* out, int batch_size, int dim)
{
    const long long n4 = ((long long)batch_size * dim) >> 2;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = __ldg(x4 + i);
        v.x = gelu_erf(v.x);
        v.y = gelu_erf(v.y);
        v.z = gelu_erf(v.z);
        v.w = gelu_erf(v.w);
        o4[i] = v;
    }
}
