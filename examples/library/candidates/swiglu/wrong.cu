// swiglu/wrong: the reference with one mistake: it gates the wrong input (silu(b) * a).
// Verdict: ref.native broke (output-mismatch).
__global__ void swiglu(const float* a, const float* b, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i];
        y[i] = b[i] / (1.0f + expf(-b[i])) * v;
    }
}