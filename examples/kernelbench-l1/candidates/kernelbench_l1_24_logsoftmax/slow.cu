// logsoftmax/slow: right but slow: one warp per row and three passes over it (its maximum, its
// sum of exponentials, the output), scalar loads in a rolled loop: each lane has one load in
// flight, 32 per row.
__device__ unsigned int aorlta_launch[7] = {512, 1, 1, 256, 1, 1, 0};

__global__ void logsoftmax(const float* x, float* out, int batch_size, int dim)
{
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x >> 5);
    for (int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); r < batch_size; r += warps) {
        const float* row = x + (long long)r * dim;
        float m = -INFINITY;
#pragma unroll 1
        for (int c = lane; c < dim; c += 32) {
            m = fmaxf(m, row[c]);
        }
        for (int o = 16; o > 0; o >>= 1) {
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        }
        float s = 0.0f;
#pragma unroll 1
        for (int c = lane; c < dim; c += 32) {
            s += expf(row[c] - m);
        }
        for (int o = 16; o > 0; o >>= 1) {
            s += __shfl_xor_sync(0xffffffffu, s, o);
        }
        const float shift = m + logf(s);
#pragma unroll 1
        for (int c = lane; c < dim; c += 32) {
            out[(long long)r * dim + c] = row[c] - shift;
        }
    }
}
