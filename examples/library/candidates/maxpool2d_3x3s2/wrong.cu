// maxpool2d_3x3s2/wrong: the reference with one mistake: it ignores the top padding (windows
// start one row low).
// Verdict: ref.native broke (output-mismatch).
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
        int ii = 2 * i + di;
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