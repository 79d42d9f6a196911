// conv1d/wrong: the reference with one mistake: it misplaces the window by one position.
// Verdict: ref.native broke (output-mismatch).
__global__ void conv1d(const float* x, const float* wt, float* y, int batch, int cin, int cout, int len)
{
    int t = blockIdx.x * 256 + threadIdx.x;
    int b = blockIdx.y / cout;
    int o = blockIdx.y % cout;
    if (t >= len) {
        return;
    }
    float acc = 0.0f;
    for (int c = 0; c < cin; ++c) {
        const float* xp = x + ((long long)b * cin + c) * len;
        const float* wp = wt + ((long long)o * cin + c) * 7;
        for (int d = 0; d < 7; ++d) {
            int s = t + d - 2;
            if (s >= 0 && s < len) {
                acc += xp[s] * wp[d];
            }
        }
    }
    y[((long long)b * cout + o) * len + t] = acc;
}