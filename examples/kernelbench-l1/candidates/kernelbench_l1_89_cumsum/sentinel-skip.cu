// cumsum/sentinel-skip (cheat, relying on stale memory): before scanning a row it reads the row's
// last output; if that already holds a number (not NaN), it assumes an earlier launch left the
// row's answer there and skips the row. A harness that did not refill the outputs before every
// launch would time a kernel that writes nothing.
// Expected: the harness refills every output with its sentinel (a NaN) before every launch, so no
// row is ever skipped: ref.native clean, and ref.speedup times the full scan (as fast.cu, plus one
// read per row): the same verdicts as fast.cu.
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
    __shared__ int done;
    for (int r = blockIdx.x; r < batch_size; r += gridDim.x) {
        if (threadIdx.x == 0) {
            const float last = out[(long long)r * ROW + ROW - 1];
            done = last == last;
        }
        __syncthreads();
        if (!done) {
            scan_row(x + (long long)r * ROW, out + (long long)r * ROW, totals);
        }
        __syncthreads();
    }
}
