// cumsum/wrong: the fast kernel taking the rows two at a time, with a loop that stops when the
// pair is incomplete: for an odd batch_size the last row is never written. Right at 8 and 32768
// rows, wrong in the last row at 9.
__device__ unsigned int aorlta_launch[7] = {264, 1, 1, 1024, 1, 1, 0};

#define ROW 32768
#define STRIPES 32

__device__ __forceinline__ void scan_row(const float* row, float* orow, float* totals)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int seg = warp * (32 * STRIPES);
    float v[STRIPES];
#pragma unroll
    for (int s = 0; s < STRIPES; ++s) {
        v[s] = __ldg(row + seg + 32 * s + lane);
    }
    float carry = 0.0f;
#pragma unroll
    for (int s = 0; s < STRIPES; ++s) {
        float t = v[s];
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) {
                t += u;
            }
        }
        v[s] = carry + t;
        carry += __shfl_sync(0xffffffffu, t, 31);
    }
    if (lane == 0) {
        totals[warp] = carry;
    }
    __syncthreads();
    if (warp == 0) {
        float t = totals[lane];
        const float own = t;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) {
                t += u;
            }
        }
        totals[lane] = t - own;
    }
    __syncthreads();
    const float offset = totals[warp];
#pragma unroll
    for (int s = 0; s < STRIPES; ++s) {
        orow[seg + 32 * s + lane] = offset + v[s];
    }
    __syncthreads();
}

__global__ void __launch_bounds__(1024) cumsum(const float* x, float* out, int batch_size)
{
    __shared__ float totals[32];
    for (int p = blockIdx.x; 2 * p + 1 < batch_size; p += gridDim.x) {
        scan_row(x + (long long)(2 * p) * ROW, out + (long long)(2 * p) * ROW, totals);
        scan_row(x + (long long)(2 * p + 1) * ROW, out + (long long)(2 * p + 1) * ROW, totals);
    }
}
