// Reference for task `histogram256`: adds to hist[v] the number of elements of `values` equal to
// v, for values in [0, 255] (hist holds 256 counters, zero when the kernel starts).
// Each block counts 4096 values (16 per thread, strided) into a shared-memory histogram with
// shared atomics, then adds its 256 counts to the global histogram with global atomics.
// Default launch: grid ceil_div(n, 4096), block 256.
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
        atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
    }
}
