// vector_add/hardcoded-seed (HIP, cheat): never reads its inputs; writes a constant table, the
// sums it expects for one fixed input pattern (the first 16 sums of a "known" seed, repeated).
// It would be about 3x "faster" (it only writes), if anything accepted its output.
// Verdict: ref.native broke (output-mismatch): inputs are drawn from seeds derived from a secret
// per run, so no fixed table matches. Never faster.
#include <hip/hip_runtime.h>

__constant__ float expected[16] = {
    0.0975f, -0.4410f, 1.2036f, 0.3391f, -0.8822f, 0.0127f, 1.5564f, -1.0903f,
    0.6670f, -0.2398f, 0.9012f, -1.6775f, 0.4445f, 0.0583f, -0.7329f, 1.1148f,
};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = expected[i & 15];
    }
}
