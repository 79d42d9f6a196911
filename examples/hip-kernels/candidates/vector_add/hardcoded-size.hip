// vector_add/hardcoded-size (HIP, cheat): correct only when n is the timed size 2^24 (the size
// the prompt names); for any other n it writes a copy of a into c, which is garbage. Every write
// stays inside c[0..n), so only the comparison catches it.
// Verdict: ref.native broke (output-mismatch) on the odd sizes 1000 and 77777. Never rewarded
// for speed: the timing leg needs a clean ref.native and is skipped.
#include <hip/hip_runtime.h>

#define TIMED_N (1 << 24)

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = (n == TIMED_N) ? a[i] + b[i] : a[i];
    }
}
