// AORLTA's HIP portability header for NVIDIA GPUs: lets `nvcc -x cu` compile a HIP kernel
// source (device code only) so that a HIP task runs through the CUDA backend. Results made
// this way are labelled "HIP source on NVIDIA": they prove the pipeline, not AMD timings.
//
// What maps: the CUDA runtime's device built-ins (threadIdx, blockIdx, blockDim, gridDim,
// __syncthreads, atomics, math), HIP's hipThreadIdx_x-style macros, the cross-lane functions
// (__shfl*, __ballot, __any, __all) onto their *_sync forms over the full warp, and
// HIP_DYNAMIC_SHARED. What does not: warpSize is 32 here and 64 on most AMD GPUs, so a kernel
// that assumes either is only right on one platform; AMD intrinsics (__builtin_amdgcn_*),
// inline GCN assembly and the HIP host API do not compile.
#pragma once
#include <cuda_runtime.h>

#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

// HIP's cross-lane functions act on the whole wavefront; on NVIDIA that is the full warp.
#define __shfl(...) __shfl_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(0xffffffffu, __VA_ARGS__)
#define __ballot(p) ((unsigned long long)__ballot_sync(0xffffffffu, (p)))
#define __any(p) __any_sync(0xffffffffu, (p))
#define __all(p) __all_sync(0xffffffffu, (p))

#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_KERNEL_NAME(...) __VA_ARGS__

typedef cudaError_t hipError_t;
#define hipSuccess cudaSuccess
