// crossentropyloss/slow: right but slow: one thread per row, walking its 4096 logits serially
// twice (the maximum, then the sum of exponentials): neighbouring threads read addresses 16 KB
// apart. The totals are combined as in fast.cu.
__device__ unsigned int aorlta_launch[7] = {128, 1, 1, 256, 1, 1, 0};
__device__ float block_totals[128];
__device__ unsigned int blocks_done;

#define CLASSES 4096

__global__ void crossentropyloss(const float* predictions, const long long* targets, float* out, int batch_size)
{
    __shared__ float thread_totals[256];
    __shared__ bool last;
    const int threads = gridDim.x * blockDim.x;
    float total = 0.0f;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < batch_size; r += threads) {
        const float* row = predictions + (long long)r * CLASSES;
        float m = -INFINITY;
#pragma unroll 1
        for (int c = 0; c < CLASSES; ++c) {
            m = fmaxf(m, row[c]);
        }
        float s = 0.0f;
#pragma unroll 1
        for (int c = 0; c < CLASSES; ++c) {
            s += expf(row[c] - m);
        }
        total += m + logf(s) - row[targets[r]];
    }
    thread_totals[threadIdx.x] = total;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int k = 0; k < (int)blockDim.x; ++k) {
            t += thread_totals[k];
        }
        block_totals[blockIdx.x] = t;
        __threadfence();
        last = atomicAdd(&blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        float t = 0.0f;
        for (int b = 0; b < (int)gridDim.x; ++b) {
            t += __ldcg(&block_totals[b]);
        }
        out[0] = t / batch_size;
        blocks_done = 0;
    }
}
