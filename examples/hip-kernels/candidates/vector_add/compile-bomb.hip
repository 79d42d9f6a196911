// vector_add/compile-bomb (HIP, cheat on the compiler): a force-inlined template recursion that
// doubles at every level, 2^24 inlined calls with no common subexpressions to merge, inside an
// otherwise correct kernel. The text is tiny; the compiler's memory and time grow without bound
// (check-hipcc.sh runs it under `timeout 20` and an 8 GiB address-space limit; never compile it
// without limits).
// Verdict: compile broke (compile-timeout or compile-memory): a compiler failure of the
// candidate's making is broke, never unsettled, and the host stays healthy.
#include <hip/hip_runtime.h>

template <int N>
__device__ __forceinline__ float bomb(float x)
{
    return bomb<N - 1>(x * 1.1f) + bomb<N - 1>(x * 1.3f);
}

template <>
__device__ __forceinline__ float bomb<0>(float x)
{
    return x;
}

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i] + 0.0f * bomb<24>(a[i]);
    }
}
