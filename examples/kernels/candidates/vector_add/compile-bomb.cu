// vector_add/compile-bomb (cheat on the compiler): a force-inlined template recursion that
// doubles at every level, 2^24 inlined calls with no common subexpressions to merge, inside an
// otherwise correct kernel. The text is tiny; the compiler's memory and time grow without bound.
// Measured with nvcc 13.0 (-arch=sm_90, 2 cores): depth 14 takes 12 s, depth 16 does not finish
// in 100 s, and this depth (24) under a 4 GB address-space limit dies with "LLVM ERROR: out of
// memory" after 41-51 s (2.9 GB resident).
// Verdict: compile broke (compile-timeout or compile-error from the memory limit): a compiler
// failure of the candidate's making is broke, never unsettled, and the host stays healthy.
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
