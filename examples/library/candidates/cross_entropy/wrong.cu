// cross_entropy/wrong: the reference with one mistake: it forgets to add back the maximum it
// factored out.
// Verdict: ref.native broke (output-mismatch).
__global__ void cross_entropy(const float* logits, const int* target, float* loss, int rows, int classes)
{
    __shared__ float part[256];
    const float* xr = logits + (long long)blockIdx.x * classes;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < classes; j += 256) {
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
    for (int j = threadIdx.x; j < classes; j += 256) {
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
    if (threadIdx.x == 0) {
        loss[blockIdx.x] = logf(part[0]) - xr[target[blockIdx.x]];
    }
}