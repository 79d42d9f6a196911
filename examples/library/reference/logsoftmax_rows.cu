// Reference for task `logsoftmax_rows`: log-softmax along the last axis of a rows x cols fp32
// matrix, stable: y[r][j] = x[r][j] - m_r - log(sum_k exp(x[r][k] - m_r)), m_r = max_k x[r][k].
// One block of 256 threads per row, three passes (max by a shared-memory tree, sum of
// exponentials by a tree, write). Default launch: grid rows, block 256.
__global__ void logsoftmax_rows(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[256];
    const float* xr = x + (long long)blockIdx.x * cols;
    float* yr = y + (long long)blockIdx.x * cols;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < cols; j += 256) {
        m = fmaxf(m, xr[j]);
    }
    part[threadIdx.x] = m;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
        }
        __syncthreads();
    }
    m = part[0];
    __syncthreads();
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += 256) {
        s += expf(xr[j] - m);
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = 128; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    float lse = logf(part[0]);
    for (int j = threadIdx.x; j < cols; j += 256) {
        yr[j] = (xr[j] - m) - lse;
    }
}
