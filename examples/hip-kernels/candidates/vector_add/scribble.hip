// vector_add/scribble (HIP, cheat): computes c correctly, then writes garbage into the 8 MiB after
// its output's allocation, where the harness keeps its other buffers (the reference's set, the
// cache flush buffer, the counters of its checks), hoping to change what the harness compares or
// how fast the reference runs.
// Verdict: ref.native broke: the reference's set was filled before the candidate ran and is
// checked untouched after it (guard-overwritten, naming the harness's other allocations), or the
// writes leave mapped memory (device-faulted).
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
    // Past c's 64 KiB tail guard, 2M floats of garbage, spread over every thread of the grid.
    float* beyond = c + n + 16384;
    long long threads = (long long)gridDim.x * blockDim.x;
    for (long long k = i; k < (2LL << 20); k += threads) {
        beyond[k] = 12345.0f;
    }
}
