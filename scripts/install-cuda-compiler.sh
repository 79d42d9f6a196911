#!/usr/bin/env bash
# Installs NVIDIA's CUDA 13.0 compilers (nvcc, ptxas, cicc, the CUDA and CCCL headers, and the runtime
# compiler NVRTC beside them) from PyPI into a venv outside the clone
# (${XDG_CACHE_HOME:-~/.cache}/aorlta/cuda-13.0, or $AORLTA_CUDA_VENV; CI clones afresh each run
# and pays the install once), so that the compile leg is tested for real on machines without a
# GPU or a CUDA toolkit. Prints the path of nvcc. Does nothing when they are already installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${AORLTA_CUDA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/aorlta/cuda-13.0}"
nvcc="$venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc"
nvrtc="$venv/lib/python3*/site-packages/nvidia/cu13/lib/libnvrtc.so.13"
# CCCL's headers: cuda_fp16.h and cuda_bf16.h include <nv/target>.
cccl="$venv/lib/python3*/site-packages/nvidia/cu13/include/nv/target"
if ! ls $nvcc $nvrtc $cccl >/dev/null 2>&1; then
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-crt==13.0.*" "nvidia-cuda-runtime==13.0.*" "nvidia-nvvm==13.0.*" "nvidia-cuda-nvrtc==13.0.*" "nvidia-cuda-cccl==13.0.*" >&2
fi
ls $nvcc
