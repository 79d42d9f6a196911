// Reference for task `sum_rows`: the sum along the last axis, y[r] = sum over j of x[r][j], for
// a rows x cols fp32 matrix, row-major. One block of 256 threads per row: strided partial sums
// (coalesced), then a shared-memory tree. Default launch: grid rows, block 256.
__global__ void sum_rows(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[256];
    const float* xr = x + (long long)blockIdx.x * cols;
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        s += xr[j];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        y[blockIdx.x] = part[0];
    }
}
