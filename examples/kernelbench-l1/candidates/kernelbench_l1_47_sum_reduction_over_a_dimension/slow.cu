// sum/slow: right but slow: one block per batch index, its 256 threads taking the outputs of that
// index in turn and summing each column with a single accumulator in a rolled loop: 128 blocks at
// the timed size, one load in flight per thread.
__device__ unsigned int aorlta_launch[7] = {128, 1, 1, 256, 1, 1, 0};

__global__ void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size, int dim1, int dim2)
{
    for (int b = blockIdx.x; b < batch_size; b += gridDim.x) {
        for (int j = threadIdx.x; j < dim2; j += blockDim.x) {
            const float* p = x + (long long)b * dim1 * dim2 + j;
            float s = 0.0f;
#pragma unroll 1
            for (int k = 0; k < dim1; ++k) {
                s += p[(long long)k * dim2];
            }
            out[(long long)b * dim2 + j] = s;
        }
    }
}
