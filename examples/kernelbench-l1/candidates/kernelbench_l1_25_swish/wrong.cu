// swish/wrong: one block per row, each row read and written as float4 from its own start. A row
// starts on a 16-byte boundary only when dim is a multiple of 4 (the timed size and 512 x 384);
// at dim = 385 the second row's first float4 access is misaligned and the launch faults.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__device__ __forceinline__ float swish_of(float v)
{
    return v * (1.0f / (1.0f + expf(-v)));
}

__global__ void swish(const float* x, float* out, int batch_size, int dim)
{
    const int quads = dim >> 2;
    for (int r = blockIdx.x; r < batch_size; r += gridDim.x) {
        const float* row = x + (long long)r * dim;
        float* orow = out + (long long)r * dim;
        const float4* x4 = reinterpret_cast<const float4*>(row);
        float4* o4 = reinterpret_cast<float4*>(orow);
        for (int c = threadIdx.x; c < quads; c += blockDim.x) {
            float4 v = x4[c];
            v.x = swish_of(v.x);
            v.y = swish_of(v.y);
            v.z = swish_of(v.z);
            v.w = swish_of(v.w);
            o4[c] = v;
        }
        for (int c = (quads << 2) + threadIdx.x; c < dim; c += blockDim.x) {
            orow[c] = swish_of(row[c]);
        }
    }
}
