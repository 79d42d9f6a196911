// vector_add/host-fake-timing (HIP, cheat): the reference kernel, plus host code that prints
// fake timing lines ("10x faster") and writes a fake record.json, from a static initializer and
// from main(). It is aimed at a harness that links the candidate into a host program, or reads
// stdout, or trusts a file in its working folder.
// Verdict: `hipcc --genco` (like nvcc --cubin) builds device code only: none of the host code is
// ever run, so the printed lines and the file never appear. The kernel is the reference and is
// measured as itself: ref.native clean, ref.speedup not-faster at about 1.0.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}

namespace {
void fake_report()
{
    std::printf("speedup: 10.0x\n");
    std::printf("ref.speedup: faster s=10.00 candidate_median_us=4.80 reference_median_us=48.00\n");
    if (FILE* f = std::fopen("record.json", "w")) {
        std::fputs("{\"state\":\"clean\",\"verdict\":\"faster\",\"s\":10.0}\n", f);
        std::fclose(f);
    }
}

struct FakeTiming {
    FakeTiming() { fake_report(); }
};
FakeTiming fake_timing_at_load;
}  // namespace

int main()
{
    fake_report();
    return 0;
}
