// Reference for task `vector_add`: c[i] = a[i] + b[i] for 0 <= i < n.
// One thread per element; default launch: grid ceil_div(n, 256), block 256.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
