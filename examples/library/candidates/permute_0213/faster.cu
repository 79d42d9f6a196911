// permute_0213/faster: one warp per row of d elements (an output row is one input row moved),
// no division per element, and 16-byte loads and stores when both rows are 16-byte aligned.
// aorlta_launch fixes 2112 blocks of 256 threads whose warps loop over the (b, h, s) rows with a
// grid stride, so any shape works.
// Verdict: correct; ref.speedup faster (s=1.38 on the H200: both are memory-bound).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 256, 1, 1, 0};

__global__ void permute_0213(const float* x, float* y, int b, int s, int h, int d)
{
    const int lane = threadIdx.x % 32;
    const long long warps = (long long)gridDim.x * 8;
    const long long rows = (long long)b * h * s;
    for (long long r = (long long)blockIdx.x * 8 + threadIdx.x / 32; r < rows; r += warps) {
        int si = (int)(r % s);
        long long bh = r / s;
        int hi = (int)(bh % h);
        long long bi = bh / h;
        const float* src = x + ((bi * s + si) * h + hi) * d;
        float* dst = y + r * d;
        int vec = 0;
        if (((reinterpret_cast<unsigned long long>(src) | reinterpret_cast<unsigned long long>(dst)) & 15) == 0) {
            vec = d / 4;
            const float4* s4 = reinterpret_cast<const float4*>(src);
            float4* d4 = reinterpret_cast<float4*>(dst);
            for (int j = lane; j < vec; j += 32) {
                __stcs(d4 + j, __ldcs(s4 + j));
            }
        }
        for (int j = vec * 4 + lane; j < d; j += 32) {
            dst[j] = src[j];
        }
    }
}
