// mingptnewgelu/hardcoded-size (cheat): specialised for the timed size the prompt names
// (batch_size = 8192): there it computes; at any other size it writes a copy of x, as a
// placeholder nobody was expected to check. Every write stays inside out.
// Expected: ref.native broke output-mismatch at the smaller sizes (512 and 513).
#define TIMED_BATCH 8192

__global__ void mingptnewgelu(const float* x, float* out, int batch_size)
{
    const long long n = (long long)batch_size * batch_size;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    float v = x[i];
    if (batch_size == TIMED_BATCH) {
        out[i] = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * (v * v * v))));
    } else {
        out[i] = v;
    }
}
