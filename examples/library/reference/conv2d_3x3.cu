// Reference for task `conv2d_3x3`: 2-D convolution (cross-correlation, as deep-learning frameworks
// define it), 3 x 3 kernel, stride 1, zero padding 1, NCHW fp32:
// y[b][o][i][j] = sum over c, di, dj of x[b][c][i+di-1][j+dj-1] * wt[o][c][di][dj].
// Direct: one output per thread, inputs and weights read from global memory (through the caches).
// Default launch: grid (ceil_div(w, 16), ceil_div(h, 16), batch * cout), block (16, 16).
__global__ void conv2d_3x3(const float* x, const float* wt, float* y, int batch, int cin, int cout, int h, int w)
{
    int j = blockIdx.x * 16 + threadIdx.x;
    int i = blockIdx.y * 16 + threadIdx.y;
    int b = blockIdx.z / cout;
    int o = blockIdx.z % cout;
    if (i >= h || j >= w) {
        return;
    }
    float acc = 0.0f;
    for (int c = 0; c < cin; ++c) {
        const float* xp = x + ((long long)b * cin + c) * h * w;
        const float* wp = wt + ((long long)o * cin + c) * 9;
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
    }
    y[(((long long)b * cout + o) * h + i) * w + j] = acc;
}
