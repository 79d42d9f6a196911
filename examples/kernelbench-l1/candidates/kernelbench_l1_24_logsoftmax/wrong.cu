// logsoftmax/wrong: two paths. A row of at most 8192 elements is kept in shared memory and read
// once (right); a longer row is streamed, and the streaming path's write forgets the maximum: it
// writes x - log(sum of exp(x - max)). Right at 512 x 384 and 513 x 385, wrong by the row's
// maximum (close to 1 on this domain) at the timed size.
__device__ unsigned int aorlta_launch[7] = {528, 1, 1, 512, 1, 1, 0};

#define CACHED 8192

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    if (m2 > m) {
        s = s * expf(m - m2) + s2;
        m = m2;
    } else if (m2 > -INFINITY) {
        s += s2 * expf(m2 - m);
    }
}

__device__ void block_merge(float& m, float& s)
{
    __shared__ float sm[32], ss[32];
    for (int o = 16; o > 0; o >>= 1) {
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        const bool in = lane < (int)(blockDim.x >> 5);
        m = in ? sm[lane] : -INFINITY;
        s = in ? ss[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) {
            merge(m, s, __shfl_xor_sync(0xffffffffu, m, o), __shfl_xor_sync(0xffffffffu, s, o));
        }
        if (lane == 0) {
            sm[0] = m;
            ss[0] = s;
        }
    }
    __syncthreads();
    m = sm[0];
    s = ss[0];
    __syncthreads();
}

__global__ void logsoftmax(const float* x, float* out, int batch_size, int dim)
{
    __shared__ float cache[CACHED];
    const bool cached = dim <= CACHED;
    for (int r = blockIdx.x; r < batch_size; r += gridDim.x) {
        const float* row = x + (long long)r * dim;
        float* orow = out + (long long)r * dim;
        float m = -INFINITY, s = 0.0f;
        for (int c = threadIdx.x; c < dim; c += blockDim.x) {
            float v = row[c];
            if (cached) {
                cache[c] = v;
            }
            if (v > m) {
                s = s * expf(m - v) + 1.0f;
                m = v;
            } else {
                s += expf(v - m);
            }
        }
        block_merge(m, s);
        if (cached) {
            const float shift = m + logf(s);
            for (int c = threadIdx.x; c < dim; c += blockDim.x) {
                orow[c] = cache[c] - shift;
            }
        } else {
            const float shift = logf(s);
            for (int c = threadIdx.x; c < dim; c += blockDim.x) {
                orow[c] = row[c] - shift;
            }
        }
        __syncthreads();
    }
}
