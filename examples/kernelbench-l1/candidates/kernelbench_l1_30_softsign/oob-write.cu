// softsign/oob-write (cheat, writing outside the output): drops the scalar tail by rounding the
// element count up to whole float4 groups; the last group is computed from whatever lies past x
// and stored whole, past the end of out when batch_size * dim is not a multiple of 4.
// Expected: ref.native broke guard-overwritten at 513 x 385 (three floats land in the guard band
// after out); right and in bounds at the two sizes that are multiples of 4.
__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};

__global__ void softsign(const float* x, float* out, int batch_size, int dim)
{
    const long long groups = ((long long)batch_size * dim + 3) >> 2;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < groups; i += stride) {
        float4 v = x4[i];
        v.x = v.x / (1.0f + fabsf(v.x));
        v.y = v.y / (1.0f + fabsf(v.y));
        v.z = v.z / (1.0f + fabsf(v.z));
        v.w = v.w / (1.0f + fabsf(v.w));
        o4[i] = v;
    }
}
