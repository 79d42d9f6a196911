// vector_add/infinite-loop (hang): every thread computes its element, then the thread of the
// last element loops forever, sleeping (__nanosleep has a side effect, so the compiler must keep
// the loop), so the kernel never returns.
// Verdict: ref.native broke (hang: the harness is killed at its timeout; the device is left busy)
// with the broke_healthy penalty; the GPU must come back usable for the next job.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
        if (i == n - 1) {
            for (;;) {
                __nanosleep(1000);
            }
        }
    }
}
