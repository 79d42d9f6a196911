#!/usr/bin/env bash
# Math-Verify's own test cases (its tests/, read from a snapshot, never copied here) scored by
# AORLTA's example Q&A profile: agreement with the verdicts its tests expect, wrong answers
# accepted, and the misses by class. Nothing of Math-Verify's is committed: the cases are
# extracted into the ignored WORK folder on every run.
#   scripts/external-suite/run.sh MATH_VERIFY_GIT_DIR [AORLTA_BINARY]
#   MATH_VERIFY_GIT_DIR: a git dir of huggingface/Math-Verify (its HEAD is read)
#   WORK (default runs/external-suite): where cases, pools, runs and the figures go
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
mv_git="${1:?usage: run.sh MATH_VERIFY_GIT_DIR [AORLTA_BINARY]}"
aorlta="$(cd "$(dirname "${2:-$root/target/release/aorlta}")" && pwd)/$(basename "${2:-aorlta}")"
export WORK="${WORK:-$root/runs/external-suite}"; mkdir -p "$WORK"; cd "$WORK"
cp "$here/classes.json" . 2>/dev/null || true
python3 "$here/extract_cases.py" "$mv_git" .          # -> cases.jsonl, extraction.json
python3 "$here/make_pool.py" . "$root/examples/qa/profile.yaml"
rm -rf run && "$aorlta" score --quiet config.yaml >/dev/null
python3 "$here/analyze.py" run                       # the figures; -> run/results.jsonl
python3 "$here/breakdown.py" run                     # misses by class; -> run/breakdown.md
# Sensitivity only: the same with the `number` answer form switched on.
rm -rf run-number && "$aorlta" score --quiet config-number.yaml >/dev/null
python3 "$here/analyze.py" run-number > run-number/figures.txt; head -3 run-number/figures.txt
