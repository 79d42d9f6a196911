// sum/fast: one thread per output (the task's default geometry); each walks its column of dim1
// values, consecutive threads reading consecutive addresses, with four independent partial sums
// so that four loads are in flight. One read of x, which is what the module's reduction kernel
// does too: as fast as PyTorch, not faster.
__global__ void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size, int dim1, int dim2)
{
    const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= (long long)batch_size * dim2) {
        return;
    }
    const long long b = o / dim2;
    const long long step = dim2;
    const float* p = x + b * dim1 * step + (o - b * step);
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int k = 0;
    for (; k + 4 <= dim1; k += 4) {
        a0 += __ldg(p + k * step);
        a1 += __ldg(p + (k + 1) * step);
        a2 += __ldg(p + (k + 2) * step);
        a3 += __ldg(p + (k + 3) * step);
    }
    for (; k < dim1; ++k) {
        a0 += __ldg(p + k * step);
    }
    out[o] = (a0 + a1) + (a2 + a3);
}
