// One block per row (grid-stride over rows): the row's max and sum by warp shuffles.
__device__ unsigned int aorlta_launch[7] = {1024, 1, 1, 256, 1, 1, 0};

__device__ float block_reduce(float v, bool is_max, float* shared) {
    for (int o = 16; o > 0; o >>= 1) {
        float w = __shfl_xor_sync(0xffffffffu, v, o);
        v = is_max ? fmaxf(v, w) : v + w;
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = threadIdx.x < (blockDim.x >> 5) ? shared[threadIdx.x] : (is_max ? -INFINITY : 0.0f);
    if (warp == 0) {
        for (int o = 16; o > 0; o >>= 1) {
            float w = __shfl_xor_sync(0xffffffffu, v, o);
            v = is_max ? fmaxf(v, w) : v + w;
        }
        if (lane == 0) shared[0] = v;
    }
    __syncthreads();
    v = shared[0];
    __syncthreads();
    return v;
}

__global__ void row_softmax(const float* x, float* out, int rows, int cols) {
    __shared__ float shared[32];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const float* row = x + (size_t)r * cols;
        float m = -INFINITY;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
        m = block_reduce(m, true, shared);
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
        s = block_reduce(s, false, shared);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) out[(size_t)r * cols + c] = __expf(row[c] - m) * inv;
    }
}
