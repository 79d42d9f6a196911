// dwconv2d_3x3/wrong: the reference with one mistake: it forgets the window's third column (an
// off-by-one bound).
// Verdict: ref.native broke (output-mismatch).
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
        for (int dj = 0; dj < 2; ++dj) {
            int jj = j + dj - 1;
            if (jj >= 0 && jj < w) {
                acc += xp[(long long)ii * w + jj] * wp[di * 3 + dj];
            }
        }
    }
    y[(long long)plane * h * w + (long long)i * w + j] = acc;
}