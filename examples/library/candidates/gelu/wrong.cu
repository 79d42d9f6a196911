// gelu/wrong: the reference with one mistake: it uses the tanh approximation the task rules out.
// Verdict: ref.native broke (output-mismatch).
__global__ void gelu(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}