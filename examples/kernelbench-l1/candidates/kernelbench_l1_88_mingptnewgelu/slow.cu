// mingptnewgelu/slow: right but slow: a single block of 1024 threads walks the whole array (float4
// when aligned): one SM does the work of all of them.
__device__ unsigned int aorlta_launch[7] = {1, 1, 1, 1024, 1, 1, 0};

__device__ __forceinline__ float new_gelu(float v)
{
    const float k = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * (v * v * v))));
}

__global__ void mingptnewgelu(const float* x, float* out, int batch_size)
{
    const long long n = (long long)batch_size * batch_size;
    long long done = 0;
    if ((((unsigned long long)x | (unsigned long long)out) & 15) == 0) {
        const long long n4 = n >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(x);
        float4* o4 = reinterpret_cast<float4*>(out);
        for (long long i = threadIdx.x; i < n4; i += blockDim.x) {
            float4 v = x4[i];
            v.x = new_gelu(v.x);
            v.y = new_gelu(v.y);
            v.z = new_gelu(v.z);
            v.w = new_gelu(v.w);
            o4[i] = v;
        }
        done = n4 << 2;
    }
    for (long long i = done + threadIdx.x; i < n; i += blockDim.x) {
        out[i] = new_gelu(x[i]);
    }
}
