// vector_add_plan/self: the reference kernel, one kernel and no plan: a plan task still takes
// a single kernel. Verdict: correct (ref.native clean).
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
