// layernorm/wrong: the fast kernel's layout, but the variance is taken in one pass in single
// precision, as the mean of the squares minus the square of the mean. On the typical draw
// (variance near 1/12) the cancellation costs a few digits and the result stays inside the
// tolerance; where a row's values lie in a narrow window (near the top of the domain, a window
// per row, runs of one value) the variance is of order 1e-5 or less, the two terms agree to about
// as many digits as single precision holds, and what is left is rounding error (even negative).
#define ROW (64 * 256 * 256)
#define SPLIT 8
#define CLUSTERS 16

__device__ unsigned int aorlta_launch[7] = {SPLIT * CLUSTERS, 1, 1, 1024, 1, 1, 0};
__device__ float partial_sum[CLUSTERS * SPLIT];
__device__ float partial_sq[CLUSTERS * SPLIT];

// The block's totals of (s, q), returned to every thread.
__device__ void block_sum2(float& s, float& q)
{
    __shared__ float ws[32], wq[32];
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
        s = in ? ws[lane] : 0.0f;
        q = in ? wq[lane] : 0.0f;
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
        float s = 0.0f, q = 0.0f;
        if (vec) {
            const float4* x4 = reinterpret_cast<const float4*>(x + base);
            for (int i = threadIdx.x; i < part / 4; i += blockDim.x) {
                float4 v = __ldg(x4 + i);
                s += v.x + v.y + v.z + v.w;
                q += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
            }
        } else {
            for (int i = threadIdx.x; i < part; i += blockDim.x) {
                float v = x[base + i];
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
        float total = 0.0f, squares = 0.0f;
        for (int k = 0; k < SPLIT; ++k) {
            total += __ldcg(&partial_sum[id * SPLIT + k]);
            squares += __ldcg(&partial_sq[id * SPLIT + k]);
        }
        const float m = total / ROW;
        const float var = squares / ROW - m * m;
        const float rstd = rsqrtf(var + 1e-5f);
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
