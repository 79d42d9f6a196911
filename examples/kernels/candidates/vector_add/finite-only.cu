// vector_add/finite-only: right on the typical draw, wrong on inputs the task allows. It
// "sanitises" sums that are not finite to zero. The task declares infinities and NaN legal in
// its inputs (IEEE addition of them is part of the contract), but the typical law never draws
// one, so only the `specials` input family shows the difference.
// Verdict: ref.native broke output-mismatch.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = a[i] + b[i];
        c[i] = isfinite(s) ? s : 0.0f;
    }
}
