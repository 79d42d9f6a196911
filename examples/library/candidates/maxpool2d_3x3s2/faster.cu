// maxpool2d_3x3s2/faster: each thread computes two vertically adjacent outputs of one column:
// their windows share an input row, so 15 reads instead of 18. Threads of a warp run along a
// row of outputs. aorlta_launch fixes 2112 blocks of 32 x 8 threads looping over (plane, 32 x 16
// tile) with a grid stride, so any shape works.
// Verdict: correct; ref.speedup faster, slightly (expected about 1.05-1.3x: both are bound by
// reading the input once).
__device__ unsigned int aorlta_launch[7] = {2112, 1, 1, 32, 8, 1, 0};

__global__ void maxpool2d_3x3s2(const float* x, float* y, int batch, int ch, int h, int w)
{
    const int oh = (h - 1) / 2 + 1, ow = (w - 1) / 2 + 1;
    const int tiles_x = (ow + 31) / 32, tiles_y = (oh + 15) / 16;
    const long long per = (long long)tiles_x * tiles_y;
    const long long items = per * batch * ch;
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
        long long plane = item / per;
        int t = (int)(item % per);
        int j = (t % tiles_x) * 32 + threadIdx.x;
        int i0 = (t / tiles_x) * 16 + threadIdx.y * 2;
        if (j >= ow || i0 >= oh) {
            continue;
        }
        const float* xp = x + plane * h * w;
        float rmax[5];
#pragma unroll
        for (int r = 0; r < 5; ++r) {
            int ii = 2 * i0 + r - 1;
            float m = -INFINITY;
            if (ii >= 0 && ii < h) {
#pragma unroll
                for (int dj = 0; dj < 3; ++dj) {
                    int jj = 2 * j + dj - 1;
                    if (jj >= 0 && jj < w) {
                        m = fmaxf(m, xp[(long long)ii * w + jj]);
                    }
                }
            }
            rmax[r] = m;
        }
        float* yp = y + plane * oh * ow;
        yp[(long long)i0 * ow + j] = fmaxf(fmaxf(rmax[0], rmax[1]), rmax[2]);
        if (i0 + 1 < oh) {
            yp[(long long)(i0 + 1) * ow + j] = fmaxf(fmaxf(rmax[2], rmax[3]), rmax[4]);
        }
    }
}
