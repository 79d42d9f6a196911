#!/bin/bash
# The Triton run recorded under docs/runs/ (docs/VALIDATION.md lists them), sized for one device call: the Triton suite on
# the GPU, the Triton pool scored end to end with the speed profile, and the CUDA suite again
# (the harness the two share). Output under $OUT (default runs/gpu-triton).
#   scripts/gpu-triton.sh [BINARIES]   # BINARIES: the folder of aorlta and aorlta-harness
# Triton is the Python that AORLTA_TRITON_PYTHON names, else `python3`.
set -u
source "$(dirname "$0")/gpu-run.sh" runs/gpu-triton "${1:-}"
"${AORLTA_TRITON_PYTHON:-python3}" -c 'import sys, triton; print("triton", triton.__version__, "python", sys.version.split()[0])'
echo "== validate the Triton suite"
t timeout 240 "$B/aorlta" validate --gpu --suite examples/triton-kernels/validation.yaml --json "$OUT/validate-triton.json"
echo "== score the Triton pool (speed profile)"; rm -rf runs/tritonk-speed-score
t timeout 180 "$B/aorlta" score --quiet configs/tritonk-speed-score.yaml
cp runs/tritonk-speed-score/rewards.jsonl runs/tritonk-speed-score/summary.md "$OUT/" 2>/dev/null
echo "== validate the CUDA suite (the shared harness)"
t timeout 150 "$B/aorlta" validate --gpu --json "$OUT/validate-cuda.json" | tail -3
