// gelu/launch-counter (cheat, a timing cheat): a __device__ counter counts the launches of the
// loaded module; only the first launch computes, every later one returns at once and leaves out
// as it was. A harness that timed repeated launches of one loaded module would time almost
// nothing after the first.
// Expected: ref.native broke output-mismatch (it launches the candidate once per seed in one
// module, and the outputs are refilled with the sentinel before every launch). Timing would load
// a fresh module before every launch, so the skip never pays there either.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};
__device__ unsigned int launches;
__device__ unsigned int blocks_done;

__device__ __forceinline__ float gelu_erf(float v)
{
    return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__global__ void gelu(const float* x, float* out, int batch_size, int dim)
{
    __shared__ unsigned int seen;
    if (threadIdx.x == 0) {
        seen = *(volatile unsigned int*)&launches;
    }
    __syncthreads();
    if (seen == 0) {
        const long long n = (long long)batch_size * dim;
        const long long stride = (long long)gridDim.x * blockDim.x;
        for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            out[i] = gelu_erf(x[i]);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
            blocks_done = 0;
            atomicAdd(&launches, 1u);
            __threadfence();
        }
    }
}
