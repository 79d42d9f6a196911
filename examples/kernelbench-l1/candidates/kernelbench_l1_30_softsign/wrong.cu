// softsign/wrong: each warp takes a tile of 128 columns of one row, and a row is cut into
// dim / 128 tiles: the columns past the last whole tile are never written. Right when dim is a
// multiple of 128 (the timed size and 512 x 384); at dim = 385 the last column of every row keeps
// the harness's sentinel.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__global__ void softsign(const float* x, float* out, int batch_size, int dim)
{
    const int tiles = dim / 128;
    const long long total = (long long)batch_size * tiles;
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
    for (long long t = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); t < total; t += warps) {
        const long long base = (t / tiles) * dim + (t % tiles) * 128;
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            float v = x[base + lane + 32 * k];
            out[base + lane + 32 * k] = v / (1.0f + fabsf(v));
        }
    }
}
