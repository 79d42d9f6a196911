#!/bin/bash
# The task library's run recorded under docs/runs/ (docs/VALIDATION.md lists them), sized for one device call: `aorlta task
# check` over every library task (reference compiled, tolerance sanity, the reference against
# itself through correctness and an A/A timing), the library's validation suite, and the library
# pool scored end to end. Output under $OUT (default runs/gpu-library); the index is regenerated
# from check.json with `python3 examples/library/make_library.py --index check.json`.
#   scripts/gpu-library.sh [BINARIES]   # BINARIES: the folder of aorlta and aorlta-harness
set -u
source "$(dirname "$0")/gpu-run.sh" runs/gpu-library "${1:-}"
echo "== task check (every library task)"
t timeout 240 "$B/aorlta" task check --gpu --profile examples/library/profile.yaml --json "$OUT/check.json" examples/library/tasks
echo "== validate the library suite"
t timeout 200 "$B/aorlta" validate --gpu --suite examples/library/validation.yaml --json "$OUT/validate.json"
echo "== score the library pool"; rm -rf runs/library-score
t timeout 100 "$B/aorlta" score --quiet configs/library-score.yaml
cp runs/library-score/summary.md "$OUT/" 2>/dev/null
head -60 runs/library-score/summary.md 2>/dev/null
