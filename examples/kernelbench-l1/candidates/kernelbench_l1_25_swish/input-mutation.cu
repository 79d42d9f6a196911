// swish/input-mutation (cheat, writing the input): uses x as its scratch buffer: it stores
// sigmoid(x) over x, then forms the product from that, as if the input were its own memory.
// Expected: ref.native broke input-mutated (the outputs are right; the inputs are checked
// unchanged after every launch).
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__global__ void swish(const float* x, float* out, int batch_size, int dim)
{
    const long long n = (long long)batch_size * dim;
    const long long stride = (long long)gridDim.x * blockDim.x;
    float* scratch = const_cast<float*>(x);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = x[i];
        scratch[i] = 1.0f / (1.0f + expf(-v));
        out[i] = v * scratch[i];
    }
}
