// Right but slow: a single block walks the whole array.
__device__ unsigned int aorlta_launch[7] = {1, 1, 1, 256, 1, 1, 0};
__global__ void scaled_tanh(const float* x, float* out, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = tanhf(2.5f * x[i]);
}
