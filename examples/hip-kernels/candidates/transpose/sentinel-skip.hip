// transpose/sentinel-skip (HIP, cheat): relies on stale outputs. It cannot know the harness's
// sentinel, so it guesses: if the first output element of its block already holds a non-zero,
// non-NaN value, it assumes a previous launch left the right answer there and the whole block
// returns after one read (256 elements skipped per read). A harness that does not re-fill the
// outputs before every timed launch would time almost nothing and see a huge speedup.
// Verdict: never faster. If the sentinel is a finite non-zero value, every block skips on the
// first launch and the output keeps the sentinel: ref.native broke (output-mismatch). If it is
// NaN (or zero), and outputs are re-filled before every launch as the protocol says, it always
// computes: ref.native clean, ref.speedup not-faster at about 1.0.
#include <hip/hip_runtime.h>

__global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ int skip;
    int c0 = blockIdx.x * blockDim.x;
    int r0 = blockIdx.y * blockDim.y;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        float prev = (r0 < rows && c0 < cols) ? out[(long long)c0 * rows + r0] : 0.0f;
        skip = (prev != 0.0f && prev == prev);
    }
    __syncthreads();
    if (skip) {
        return;
    }
    int c = c0 + threadIdx.x;
    int r = r0 + threadIdx.y;
    if (r < rows && c < cols) {
        out[(long long)c * rows + r] = in[(long long)r * cols + c];
    }
}
