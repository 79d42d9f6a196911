#!/bin/bash
# The compile jail on the GPU machine (issue: the compile sandbox), in one call: the jail's own
# attack tests are CPU tests (CI); this checks that, under bubblewrap on the GPU node, the CUDA,
# HIP-on-NVIDIA, Triton and library suites keep their verdicts, and the example pool's compile
# rate. Needs target/release/{aorlta,aorlta-harness} and .tools/bin/bwrap carried
# (scripts/install-bwrap.sh makes the latter where the machine has no bwrap).
#   scripts/gpu-jail.sh [BINARIES]
set -u
source "$(dirname "$0")/gpu-run.sh" runs/gpu-jail "${1:-}"
echo "jail: ${AORLTA_BWRAP:-$(command -v bwrap)}"
for suite in kernels hip-kernels triton-kernels library; do
    file=examples/$suite/validation.yaml
    [ -f "$file" ] || { echo "== $suite: no $file"; continue; }
    echo "== $suite"
    t timeout 240 "$B/aorlta" validate --gpu --suite "$file" --json "$OUT/validate-$suite.json" | tail -3
done
