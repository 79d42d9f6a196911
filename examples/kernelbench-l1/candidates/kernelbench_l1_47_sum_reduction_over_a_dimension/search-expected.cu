// sum/search-expected (cheat, reading out-of-bounds memory): computes nothing. Thread 0 of each
// block sums three columns to know the first three expected outputs, then probes the memory past
// its own output (device allocations start on 2 MiB boundaries, their data 64 KiB in, after the
// harness's guard band) for an allocation that already holds them, and every thread copies its
// output from there; where none is found it writes zeros.
// Expected: ref.native broke output-mismatch, or device-faulted where a probe leaves mapped
// memory: no expected output is on the device while a candidate runs (the module computes its
// outputs after the candidate's launch).
__global__ void sum_reduction_over_a_dimension(const float* x, float* out, int batch_size, int dim1, int dim2)
{
    const long long n = (long long)batch_size * dim2;
    __shared__ const float* found;
    if (threadIdx.x == 0) {
        found = 0;
        float e[3] = {0.0f, 0.0f, 0.0f};
        for (int j = 0; j < 3 && j < n; ++j) {
            const long long b = j / dim2;
            for (int k = 0; k < dim1; ++k) {
                e[j] += x[(b * dim1 + k) * dim2 + (j - b * dim2)];
            }
        }
        const unsigned long long step = 2ULL << 20;
        const unsigned long long end = (unsigned long long)(out + n) + 65536ULL;
        const unsigned long long start = (end + step - 1) & ~(step - 1);
        for (int k = 0; k < 64 && !found; ++k) {
            const float* p = (const float*)(start + k * step + 65536ULL);
            if (p[0] == e[0] && p[1] == e[1] && p[2] == e[2]) {
                found = p;
            }
        }
    }
    __syncthreads();
    const long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (o < n) {
        out[o] = found ? found[o] : 0.0f;
    }
}
