// mingptnewgelu/wrong: leaves out the cubic term, computing 0.5 x (1 + tanh(sqrt(2 / pi) x)).
// The term is 0.044715 x^3, so the result is right near zero (inputs near the bottom of the
// domain, small magnitudes) and wrong above about x = 0.27, where the difference passes the
// tolerance (about 0.01 at x = 1).
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__global__ void mingptnewgelu(const float* x, float* out, int batch_size)
{
    const long long n = (long long)batch_size * batch_size;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * v));
    }
}
