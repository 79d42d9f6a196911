// A CPU emulation of the CUDA subset the library's kernels use, for checking kernels where no GPU
// is at hand (emu.py drives it). Blocks run one at a time; a block's threads run as real threads,
// so __syncthreads is a barrier and warp shuffles exchange through a per-warp buffer between two
// barriers. `__shared__` becomes `static` (one block at a time shares it), atomics are
// std::atomic_ref. It says nothing about speed, and it is not the GPU: libm's expf and erff
// differ from CUDA's by a few units in the last place, which the tolerances absorb.
#pragma once
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

struct emu_dim3 {
    unsigned x = 1, y = 1, z = 1;
};
inline thread_local emu_dim3 threadIdx, blockIdx;
inline emu_dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __shared__ static

struct float2 {
    float x, y;
};
struct float4 {
    float x, y, z, w;
};
struct int4 {
    int x, y, z, w;
};
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline T __ldg(const T* p) { return *p; }

inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline int atomicAdd(int* p, int v) { return std::atomic_ref<int>(*p).fetch_add(v); }
inline float4 atomicAdd(float4* p, float4 v)
{
    return {atomicAdd(&p->x, v.x), atomicAdd(&p->y, v.y), atomicAdd(&p->z, v.z), atomicAdd(&p->w, v.w)};
}

struct emu_warp {
    std::unique_ptr<std::barrier<>> bar;
    uint64_t buf[32];
};
inline std::unique_ptr<std::barrier<>> emu_block_bar;
inline std::vector<emu_warp> emu_warps;
inline std::vector<unsigned char> emu_dynamic_shared;
inline thread_local unsigned emu_lane, emu_warp_id;

inline void __syncthreads() { emu_block_bar->arrive_and_wait(); }

template <class T> inline uint64_t emu_bits(T v)
{
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> inline T emu_from(uint64_t b)
{
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> inline T emu_shfl(T v, int src)
{
    emu_warp& w = emu_warps[emu_warp_id];
    w.buf[emu_lane] = emu_bits(v);
    w.bar->arrive_and_wait();
    T r = (src >= 0 && src < 32) ? emu_from<T>(w.buf[src]) : v;
    w.bar->arrive_and_wait();
    return r;
}
template <class T> inline T __shfl_xor_sync(unsigned, T v, int off) { return emu_shfl(v, (int)emu_lane ^ off); }
template <class T> inline T __shfl_sync(unsigned, T v, int src) { return emu_shfl(v, src); }
template <class T> inline T __shfl_up_sync(unsigned, T v, int off)
{
    int src = (int)emu_lane - off;
    T r = emu_shfl(v, src < 0 ? -1 : src);
    return r;
}
template <class T> inline T __shfl_down_sync(unsigned, T v, int off)
{
    int src = (int)emu_lane + off;
    return emu_shfl(v, src > 31 ? -1 : src);
}

template <class T> inline T* emu_shared() { return reinterpret_cast<T*>(emu_dynamic_shared.data()); }

// Runs `kernel` over the grid, one block at a time, on one set of threads that walk the blocks
// together (fresh barriers for every block, so threads that returned early do not block others).
inline void emu_launch(emu_dim3 grid, emu_dim3 block, size_t shared, const std::function<void()>& kernel)
{
    gridDim = grid;
    blockDim = block;
    const unsigned n = block.x * block.y * block.z;
    emu_dynamic_shared.assign(shared + 16, 0);
    auto fresh = [n] {
        emu_block_bar = std::make_unique<std::barrier<>>(n);
        emu_warps.clear();
        emu_warps.resize((n + 31) / 32);
        for (unsigned w = 0; w < emu_warps.size(); ++w) {
            emu_warps[w].bar = std::make_unique<std::barrier<>>(std::min(32u, n - 32 * w));
        }
    };
    fresh();
    std::barrier<> outer(n);
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (unsigned t = 0; t < n; ++t) {
        threads.emplace_back([&, t] {
            threadIdx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            emu_lane = t % 32;
            emu_warp_id = t / 32;
            for (unsigned long long b = 0; b < blocks; ++b) {
                outer.arrive_and_wait();
                blockIdx = {(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y), (unsigned)(b / ((unsigned long long)grid.x * grid.y))};
                kernel();
                emu_warps[emu_warp_id].bar->arrive_and_drop();
                emu_block_bar->arrive_and_drop();
                outer.arrive_and_wait();
                if (t == 0) {
                    fresh();
                }
            }
        });
    }
    for (auto& th : threads) th.join();
}
