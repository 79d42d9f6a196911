// conv2d_3x3/wrong: the reference with one mistake: it flips the kernel (a true convolution, not
// the cross-correlation asked for).
// Verdict: ref.native broke (output-mismatch).
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
                    acc += xp[(long long)ii * w + jj] * wp[8 - (di * 3 + dj)];
                }
            }
        }
    }
    y[(((long long)b * cout + o) * h + i) * w + j] = acc;
}