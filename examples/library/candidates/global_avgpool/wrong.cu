// global_avgpool/wrong: the reference with one mistake: it divides by the block size instead of
// hw.
// Verdict: ref.native broke (output-mismatch).
__global__ void global_avgpool(const float* x, float* y, int rows, int hw)
{
    __shared__ float part[64];
    int r = blockIdx.x;
    const float* xr = x + (long long)r * hw;
    float s = 0.0f;
    for (int t = threadIdx.x; t < hw; t += 64) {
        s += xr[t];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = 32; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        y[r] = part[0] / 64.0f;
    }
}