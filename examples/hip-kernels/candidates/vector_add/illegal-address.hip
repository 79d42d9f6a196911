// vector_add/illegal-address (HIP, fault): computes c, then thread 0 stores through a wild
// pointer (address 0x10). The launch fails with a memory access fault (AMD) or an
// illegal-address error (NVIDIA), which leaves the context unusable.
// Verdict: ref.native broke (device-faulted) with the broke_healthy penalty; the harness process
// must be the one that dies, and the next job must get a healthy device.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        if (i == 0) {
            *reinterpret_cast<volatile float*>(0x10) = c[0];
        }
    }
}
