// vector_add/slower (HIP): every element is computed twice, once by its own thread and once by
// the thread half the vector away, so a and b are read twice from memory and c written twice
// (the two writes store the same value). About twice the reference's traffic.
// Verdict: correct; ref.speedup not-faster with s about 0.5 (expected 0.4-0.7).
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        int half = n / 2;
        int j = i + half < n ? i + half : i + half - n;
        c[j] = a[j] + b[j];
    }
}
