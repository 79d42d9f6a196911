// cumsum/slow: right but slow: one thread per row walking it serially with a running sum, 4096
// threads in all, so at the timed size each thread scans eight rows one after another. The
// running sum is kept in double precision: in single precision, 32768 additions in a row drift
// past the tolerance where the values lie in a narrow window.
__device__ unsigned int aorlta_launch[7] = {64, 1, 1, 64, 1, 1, 0};

#define ROW 32768

__global__ void cumsum(const float* x, float* out, int batch_size)
{
    const int threads = gridDim.x * blockDim.x;
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < batch_size; r += threads) {
        const float* row = x + (long long)r * ROW;
        float* orow = out + (long long)r * ROW;
        double s = 0.0;
#pragma unroll 1
        for (int c = 0; c < ROW; ++c) {
            s += row[c];
            orow[c] = (float)s;
        }
    }
}
