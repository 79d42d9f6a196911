// Reference for task `global_avgpool`: global average pooling, y[r] = (1 / hw) * sum over
// t < hw of x[r][t], for rows = batch * channels feature maps of hw elements each, fp32.
// One block of 64 threads per row: strided partial sums, then a shared-memory tree.
// Default launch: grid rows, block 64.
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
        y[r] = part[0] / (float)hw;
    }
}
