// vector_add/launch-short-symbol (bad geometry): defines aorlta_launch with only 3 elements
// (12 bytes instead of 28). A harness that copies 28 bytes from the symbol's address without
// checking the size the module reports would read past it into whatever follows.
// The kernel is a correct grid-stride loop.
// Verdict: broke (bad launch symbol: 12 bytes, expected 28), before any launch.
__device__ unsigned int aorlta_launch[3] = {1024, 1, 1};

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        c[i] = a[i] + b[i];
    }
}
