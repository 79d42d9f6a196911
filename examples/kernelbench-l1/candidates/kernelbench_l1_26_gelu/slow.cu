// gelu/slow: right but slow: 132 blocks of 256 threads, one scalar element per thread per
// iteration and the loop kept rolled, so each thread has one load in flight: about 135 KB in
// flight on the whole GPU, a small fraction of what it takes to keep HBM busy.
__device__ unsigned int aorlta_launch[7] = {132, 1, 1, 256, 1, 1, 0};

__global__ void gelu(const float* x, float* out, int batch_size, int dim)
{
    const long long n = (long long)batch_size * dim;
    const long long stride = (long long)gridDim.x * blockDim.x;
#pragma unroll 1
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
