// AORLTA's HIP portability header for NVIDIA GPUs: HIP's half-precision header is CUDA's.
#pragma once
#include <cuda_fp16.h>
