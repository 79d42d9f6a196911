// histogram256/wrong: the reference with one mistake: it stores its block's counts instead of
// adding them, so blocks overwrite each other.
// Verdict: ref.native broke (output-mismatch).
__global__ void histogram256(const int* values, unsigned int* hist, int n)
{
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    long long base = (long long)blockIdx.x * 4096;
    for (int k = 0; k < 16; ++k) {
        long long i = base + k * 256 + threadIdx.x;
        if (i < n) {
            atomicAdd(&local[values[i] & 255], 1u);
        }
    }
    __syncthreads();
    if (local[threadIdx.x] != 0) {
        hist[threadIdx.x] = local[threadIdx.x];
    }
}