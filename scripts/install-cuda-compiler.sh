#!/usr/bin/env bash
# Installs NVIDIA's CUDA 13.0 compiler (nvcc, ptxas, cicc and the CUDA headers) from PyPI into
# .venv-cuda, so that the compile leg is tested for real on machines without a GPU or a CUDA
# toolkit. Prints the path of nvcc. Does nothing when it is already installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-cuda"
nvcc="$venv/lib/python3*/site-packages/nvidia/cu13/bin/nvcc"
if ! ls $nvcc >/dev/null 2>&1; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-crt==13.0.*" "nvidia-cuda-runtime==13.0.*" "nvidia-nvvm==13.0.*" >&2
fi
ls $nvcc
