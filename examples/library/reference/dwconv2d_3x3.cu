// Reference for task `dwconv2d_3x3`: depthwise 3 x 3 convolution (one filter per channel, no
// mixing across channels), stride 1, zero padding 1, NCHW fp32:
// y[b][c][i][j] = sum over di, dj of x[b][c][i+di-1][j+dj-1] * wt[c][di][dj].
// One output per thread (threads of a block along a row, coalesced), nine reads through the caches.
// Default launch: grid (ceil_div(w, 32), ceil_div(h, 8), batch * ch), block (32, 8).
__global__ void dwconv2d_3x3(const float* x, const float* wt, float* y, int batch, int ch, int h, int w)
{
    int j = blockIdx.x * 32 + threadIdx.x;
    int i = blockIdx.y * 8 + threadIdx.y;
    int plane = blockIdx.z;
    if (i >= h || j >= w) {
        return;
    }
    const float* xp = x + (long long)plane * h * w;
    const float* wp = wt + (long long)(plane % ch) * 9;
    float acc = 0.0f;
    for (int di = 0; di < 3; ++di) {
        int ii = i + di - 1;
        if (ii < 0 || ii >= h) {
            continue;
        }
        for (int dj = 0; dj < 3; ++dj) {
            int jj = j + dj - 1;
            if (jj >= 0 && jj < w) {
                acc += xp[(long long)ii * w + jj] * wp[di * 3 + dj];
            }
        }
    }
    y[(long long)plane * h * w + (long long)i * w + j] = acc;
}
