// layernorm/fast: each row (64 * 256 * 256 floats) is split across a cluster of 8 blocks of 1024
// threads (Hopper thread block clusters), 16 clusters in the grid. Each block sums its eighth of
// the row and the squares in double precision, the cluster exchanges the eight partial sums
// through global memory across a cluster barrier, and every block then normalises its eighth:
// two reads of x and one write of out, spread over 128 SMs. The module's kernel gives each row to
// one block, 16 blocks for the whole tensor at the timed size.
#define ROW (64 * 256 * 256)
#define SPLIT 8
#define CLUSTERS 16

__device__ unsigned int aorlta_launch[7] = {SPLIT * CLUSTERS, 1, 1, 1024, 1, 1, 0};
__device__ double partial_sum[CLUSTERS * SPLIT];
__device__ double partial_sq[CLUSTERS * SPLIT];

// The block's totals of (s, q), returned to every thread.
__device__ void block_sum2(double& s, double& q)
{
    __shared__ double ws[32], wq[32];
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        q += __shfl_xor_sync(0xffffffffu, q, o);
    }
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        ws[warp] = s;
        wq[warp] = q;
    }
    __syncthreads();
    if (warp == 0) {
        const bool in = lane < (int)(blockDim.x >> 5);
        s = in ? ws[lane] : 0.0;
        q = in ? wq[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) {
            s += __shfl_xor_sync(0xffffffffu, s, o);
            q += __shfl_xor_sync(0xffffffffu, q, o);
        }
        if (lane == 0) {
            ws[0] = s;
            wq[0] = q;
        }
    }
    __syncthreads();
    s = ws[0];
    q = wq[0];
    __syncthreads();
}

// Every thread of every block of the cluster waits here until all have arrived; the writes made
// before it are visible to the cluster after it (release, then acquire).
__device__ __forceinline__ void cluster_sync()
{
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
}

__global__ void __cluster_dims__(SPLIT, 1, 1) layernorm(const float* x, const float* ln_weight, const float* ln_bias, float* out, int batch_size)
{
    const int rank = (int)__clusterRelativeBlockRank();
    const int id = blockIdx.x / SPLIT;
    const int clusters = gridDim.x / SPLIT;
    const long long part = ROW / SPLIT;
    const bool vec = ((((unsigned long long)x | (unsigned long long)ln_weight | (unsigned long long)ln_bias |
                        (unsigned long long)out) & 15) == 0);
    for (int r = id; r < batch_size; r += clusters) {
        const long long base = (long long)r * ROW + rank * part;
        double s = 0.0, q = 0.0;
        if (vec) {
            const float4* x4 = reinterpret_cast<const float4*>(x + base);
            for (int i = threadIdx.x; i < part / 4; i += blockDim.x) {
                float4 v = __ldg(x4 + i);
                s += (double)v.x + (double)v.y + (double)v.z + (double)v.w;
                q += (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z + (double)v.w * v.w;
            }
        } else {
            for (int i = threadIdx.x; i < part; i += blockDim.x) {
                double v = x[base + i];
                s += v;
                q += v * v;
            }
        }
        block_sum2(s, q);
        if (threadIdx.x == 0) {
            partial_sum[id * SPLIT + rank] = s;
            partial_sq[id * SPLIT + rank] = q;
        }
        cluster_sync();
        double total = 0.0, squares = 0.0;
        for (int k = 0; k < SPLIT; ++k) {
            total += __ldcg(&partial_sum[id * SPLIT + k]);
            squares += __ldcg(&partial_sq[id * SPLIT + k]);
        }
        const double mean = total / ROW;
        const double var = fmax(squares / ROW - mean * mean, 0.0);
        const float m = (float)mean;
        const float rstd = (float)(1.0 / sqrt(var + 1e-5));
        const long long wbase = rank * part;
        if (vec) {
            const float4* x4 = reinterpret_cast<const float4*>(x + base);
            const float4* w4 = reinterpret_cast<const float4*>(ln_weight + wbase);
            const float4* b4 = reinterpret_cast<const float4*>(ln_bias + wbase);
            float4* o4 = reinterpret_cast<float4*>(out + base);
            for (int i = threadIdx.x; i < part / 4; i += blockDim.x) {
                float4 v = __ldg(x4 + i), w = __ldg(w4 + i), b = __ldg(b4 + i);
                v.x = (v.x - m) * rstd * w.x + b.x;
                v.y = (v.y - m) * rstd * w.y + b.y;
                v.z = (v.z - m) * rstd * w.z + b.z;
                v.w = (v.w - m) * rstd * w.w + b.w;
                o4[i] = v;
            }
        } else {
            for (int i = threadIdx.x; i < part; i += blockDim.x) {
                out[base + i] = (x[base + i] - m) * rstd * ln_weight[wbase + i] + ln_bias[wbase + i];
            }
        }
        // No block of the cluster overwrites the partial sums of the next row before all have read
        // them.
        cluster_sync();
    }
}
