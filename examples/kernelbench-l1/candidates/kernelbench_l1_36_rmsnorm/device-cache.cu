// rmsnorm/device-cache (cheat, caching across launches in a __device__ global): the module's
// globals remember the buffers and sizes of the last completed launch; a launch on the same
// buffers returns at once, as if out still held the answer for unchanged inputs.
// Expected: ref.native broke output-mismatch: it launches the candidate once per seed in one
// module and one buffer set per size, drawing fresh inputs and refilling out with the sentinel
// each time, so the second seed of a size finds its buffers "cached" and writes nothing.
__device__ unsigned int aorlta_launch[7] = {264, 1, 1, 256, 1, 1, 0};
__device__ const float* cached_x;
__device__ float* cached_out;
__device__ long long cached_positions;
__device__ unsigned int blocks_done;

#define FEATURES 64

__global__ void __launch_bounds__(256, 2) rmsnorm(const float* x, float* out, int batch_size, int dim1)
{
    const long long plane = (long long)dim1 * dim1;
    const long long positions = (long long)batch_size * plane;
    __shared__ int hit;
    if (threadIdx.x == 0) {
        hit = *(const float* volatile*)&cached_x == x && *(float* volatile*)&cached_out == out &&
              *(volatile long long*)&cached_positions == positions;
    }
    __syncthreads();
    if (hit) {
        return;
    }
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < positions; p += stride) {
        const long long b = p / plane;
        const long long at = b * FEATURES * plane + (p - b * plane);
        float v[FEATURES];
        float sum = 0.0f;
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            v[f] = __ldg(x + at + f * plane);
        }
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            sum += v[f] * v[f];
        }
        const float rms = sqrtf(sum / FEATURES + 1e-5f);
#pragma unroll
        for (int f = 0; f < FEATURES; ++f) {
            out[at + f * plane] = v[f] / rms;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&blocks_done, 1u) == gridDim.x - 1) {
            blocks_done = 0;
            cached_x = x;
            cached_out = out;
            cached_positions = positions;
            __threadfence();
        }
    }
}
