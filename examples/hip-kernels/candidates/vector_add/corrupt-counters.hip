// vector_add/corrupt-counters (HIP, cheat): writes zeros for c, then fills the 1 MiB after its
// output's allocation with 2^64 - n in every 8-byte word, hoping to land on the counters the
// harness's comparison adds its mismatches to, so that n mismatches wrap around to "none".
// Verdict: ref.native broke (output-mismatch, guard-overwritten or device-faulted): the harness
// zeroes its counters after the candidate's launch and before any check runs, so nothing the
// kernel wrote into them survives into a verdict.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = 0.0f;
    }
    unsigned long long* beyond = (unsigned long long*)(c + n + 16384);
    long long threads = (long long)gridDim.x * blockDim.x;
    for (long long k = i; k < (128LL << 10); k += threads) {
        beyond[k] = 0ULL - (unsigned long long)n;
    }
}
