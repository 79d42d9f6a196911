// softsign/slow: right but slow: 66 blocks of 256 threads, one scalar element per thread per
// iteration, the loop kept rolled: one load in flight per thread.
__device__ unsigned int aorlta_launch[7] = {66, 1, 1, 256, 1, 1, 0};

__global__ void softsign(const float* x, float* out, int batch_size, int dim)
{
    const long long n = (long long)batch_size * dim;
    const long long stride = (long long)gridDim.x * blockDim.x;
#pragma unroll 1
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        out[i] = v / (1.0f + fabsf(v));
    }
}
