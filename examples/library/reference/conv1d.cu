// Reference for task `conv1d`: 1-D convolution (cross-correlation) over sequences, kernel width 7,
// stride 1, zero padding 3, layout (batch, channels, length), fp32:
// y[b][o][t] = sum over c and d = 0..6 of x[b][c][t+d-3] * wt[o][c][d].
// Direct: one output per thread (threads along t, coalesced), weights and inputs read through
// the caches. Default launch: grid (ceil_div(len, 256), batch * cout), block 256.
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
            int s = t + d - 3;
            if (s >= 0 && s < len) {
                acc += xp[s] * wp[d];
            }
        }
    }
    y[((long long)b * cout + o) * len + t] = acc;
}
