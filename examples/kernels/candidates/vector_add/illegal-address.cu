// vector_add/illegal-address (fault): computes c, then thread 0 stores through a wild pointer
// (address 0x10). The launch fails with an illegal-address error, which leaves the CUDA context
// unusable.
// Verdict: ref.native broke (kernel-fault: illegal address) with the broke_healthy penalty; the
// harness process must be the one that dies, and the next job must get a healthy device.
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
