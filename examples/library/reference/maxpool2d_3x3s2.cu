// Reference for task `maxpool2d_3x3s2`: 2-D max pooling, 3 x 3 window, stride 2, padding 1
// (padding never wins), NCHW fp32: with oh = (h - 1) / 2 + 1 and ow = (w - 1) / 2 + 1,
// y[p][i][j] = max over di, dj in 0..2 of x[p][2i+di-1][2j+dj-1] (inside the image).
// One output per thread, threads along a row, reads through the caches.
// Default launch: grid (ceil_div((w - 1) / 2 + 1, 32), ceil_div((h - 1) / 2 + 1, 8), batch * ch),
// block (32, 8).
__global__ void maxpool2d_3x3s2(const float* x, float* y, int batch, int ch, int h, int w)
{
    int oh = (h - 1) / 2 + 1, ow = (w - 1) / 2 + 1;
    int j = blockIdx.x * 32 + threadIdx.x;
    int i = blockIdx.y * 8 + threadIdx.y;
    long long plane = blockIdx.z;
    if (i >= oh || j >= ow) {
        return;
    }
    const float* xp = x + plane * h * w;
    float m = -INFINITY;
    for (int di = 0; di < 3; ++di) {
        int ii = 2 * i + di - 1;
        if (ii < 0 || ii >= h) {
            continue;
        }
        for (int dj = 0; dj < 3; ++dj) {
            int jj = 2 * j + dj - 1;
            if (jj >= 0 && jj < w) {
                m = fmaxf(m, xp[(long long)ii * w + jj]);
            }
        }
    }
    y[plane * oh * ow + (long long)i * ow + j] = m;
}
