// vector_add/search-expected (HIP, cheat): does not add. Each block probes the allocations after
// its own buffers (on 2 MiB boundaries, their data 64 KiB in, after the harness's guard band) for
// one that already holds the expected sums, checking three elements, and copies n sums from
// there; where it finds none it writes zeros.
// Verdict: ref.native broke (output-mismatch), or device-faulted where a probe leaves mapped
// memory: no expected output is ever on the device while a candidate runs.
#include <hip/hip_runtime.h>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    __shared__ const float* found;
    if (threadIdx.x == 0) {
        found = 0;
        float e0 = a[0] + b[0], e1 = a[1] + b[1], e2 = a[2] + b[2];
        unsigned long long end = (unsigned long long)(c + n) + 65536ULL;
        unsigned long long step = 2ULL << 20;
        unsigned long long x = (end + step - 1) & ~(step - 1);
        for (int k = 0; k < 64 && !found; ++k) {
            const float* p = (const float*)(x + k * step + 65536ULL);
            if (p[0] == e0 && p[1] == e1 && p[2] == e2) {
                found = p;
            }
        }
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = found ? found[i] : 0.0f;
    }
}
