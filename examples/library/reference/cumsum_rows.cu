// Reference for task `cumsum_rows`: inclusive prefix sum along the last axis of a rows x cols
// fp32 matrix, y[r][j] = sum over k <= j of x[r][k]. One block of 256 threads per row, walking
// it in chunks of 256: a Hillis-Steele scan of each chunk in shared memory (8 steps), plus the
// running total of the chunks before it. Default launch: grid rows, block 256.
__global__ void cumsum_rows(const float* x, float* y, int rows, int cols)
{
    __shared__ float buf[256];
    __shared__ float carry;
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    if (threadIdx.x == 0) {
        carry = 0.0f;
    }
    for (int base = 0; base < cols; base += 256) {
        int j = base + threadIdx.x;
        float v = j < cols ? xr[j] : 0.0f;
        buf[threadIdx.x] = v;
        __syncthreads();
        for (int off = 1; off < 256; off *= 2) {
            float add = threadIdx.x >= off ? buf[threadIdx.x - off] : 0.0f;
            __syncthreads();
            buf[threadIdx.x] += add;
            __syncthreads();
        }
        float c = carry;
        if (j < cols) {
            yr[j] = c + buf[threadIdx.x];
        }
        __syncthreads();
        if (threadIdx.x == 255) {
            carry = c + buf[255];
        }
        __syncthreads();
    }
}
