// maxpool2d_3x3s2/faster: the reference's geometry (one output per thread, 32 x 8 blocks), but
// each of the three input rows is read with coalesced 8-byte loads (lane j: columns 2j and
// 2j + 1), all six loads issued before the first is used, and column 2j - 1 comes from the
// left lane by a shuffle (lane 0 loads it). Needs an even width and 8-byte alignment; otherwise
// the reference's nine loads.
// Verdict: correct; ref.speedup faster (about 1.15x on the H200: both read the input once).

__global__ void maxpool2d_3x3s2(const float* x, float* y, int batch, int ch, int h, int w)
{
    const int oh = (h - 1) / 2 + 1, ow = (w - 1) / 2 + 1;
    const int lane = threadIdx.x;
    const int j = blockIdx.x * 32 + lane;
    const int i = blockIdx.y * 8 + threadIdx.y;
    const long long plane = blockIdx.z;
    const float* xp = x + plane * h * w;
    if ((w & 1) == 0 && (reinterpret_cast<unsigned long long>(x) & 7) == 0) {
        if (i >= oh) {
            return;  // the whole warp leaves together
        }
        float2 p[3];
        float l[3];
#pragma unroll
        for (int di = 0; di < 3; ++di) {
            const int ii = 2 * i + di - 1;
            const bool row_ok = ii >= 0 && ii < h;
            const float* row = xp + (long long)ii * w;
            p[di] = (row_ok && j < ow) ? __ldg(reinterpret_cast<const float2*>(row) + j) : make_float2(-INFINITY, -INFINITY);
            l[di] = (row_ok && lane == 0 && j > 0 && j < ow) ? __ldg(row + 2 * j - 1) : -INFINITY;
        }
        float m = -INFINITY;
#pragma unroll
        for (int di = 0; di < 3; ++di) {
            float left = __shfl_up_sync(0xffffffffu, p[di].y, 1);
            if (lane == 0) {
                left = l[di];
            }
            m = fmaxf(m, fmaxf(left, fmaxf(p[di].x, p[di].y)));
        }
        if (j < ow) {
            y[plane * oh * ow + (long long)i * ow + j] = m;
        }
        return;
    }
    if (i >= oh || j >= ow) {
        return;
    }
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
