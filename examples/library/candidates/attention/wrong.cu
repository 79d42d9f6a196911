// attention/wrong: the reference with one mistake: it scales the scores by 1/d instead of
// 1/sqrt(d).
// Verdict: ref.native broke (output-mismatch).
__global__ void attention(const float* q, const float* k, const float* v, float* out, int s, int d)
{
    extern __shared__ float score[];
    __shared__ float part[128];
    const int i = blockIdx.x;
    const float* qi = q + (long long)i * d;
    const float scale = 1.0f / (float)d;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < s; j += 128) {
        const float* kj = k + (long long)j * d;
        float dot = 0.0f;
        for (int t = 0; t < d; ++t) {
            dot += qi[t] * kj[t];
        }
        dot *= scale;
        score[j] = dot;
        m = fmaxf(m, dot);
    }
    part[threadIdx.x] = m;
    __syncthreads();
    for (int half = 64; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + half]);
        }
        __syncthreads();
    }
    m = part[0];
    __syncthreads();
    float sum = 0.0f;
    for (int j = threadIdx.x; j < s; j += 128) {
        float p = expf(score[j] - m);
        score[j] = p;
        sum += p;
    }
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int half = 64; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            part[threadIdx.x] += part[threadIdx.x + half];
        }
        __syncthreads();
    }
    const float inv = 1.0f / part[0];
    for (int t = threadIdx.x; t < d; t += 128) {
        float acc = 0.0f;
        for (int j = 0; j < s; ++j) {
            acc += score[j] * v[(long long)j * d + t];
        }
        out[(long long)i * d + t] = acc * inv;
    }
}