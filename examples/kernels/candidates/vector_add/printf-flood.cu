// vector_add/printf-flood: computes c correctly, and every thread printf's 16 lines per launch
// (2^28 lines at n = 2^24). The device printf buffer (1 MiB by default) fills and the rest is
// dropped; the driver writes what fits to the harness's stdout at every synchronisation.
// Verdict: ref.native clean (the output is right); ref.speedup too-slow-to-measure or not-faster
// (printf is slow). The service never reads the harness's stdout, and must not let it block
// either: a harness whose stdout is an unread pipe stalls once the pipe fills (send it to a file
// with a size cap, or to /dev/null).
#include <cstdio>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        for (int line = 0; line < 16; ++line) {
            printf("speedup: 10.0x (thread %d, line %d, c = %f)\n", i, line, c[i]);
        }
    }
}
