#!/usr/bin/env bash
# The differential test of the Q&A verdicts against the MATH benchmark's grader (`is_equiv` of
# hendrycks/math, which verl's MATH reward and lm-evaluation-harness's `hendrycks_math` copy),
# over that grader's own test cases (vendored, MIT: examples/qa/hendrycks-math/).
#   scripts/hendrycks-math-diff.sh            # score the cases both ways, write the report
#   scripts/hendrycks-math-diff.sh --check    # also fail if an agreeing pair regressed, a
#                                             # disagreement has no class, or AORLTA accepts a
#                                             # pair classed aorlta-wrong (what CI runs)
#   scripts/hendrycks-math-diff.sh --update   # rewrite the baseline of agreeing pairs
# Re-extract the cases from the upstream test file (fetched at the pinned commit into
# ~/.cache/aorlta/hendrycks-math): python3 scripts/hendrycks_math_diff.py extract
#   --cases examples/qa/hendrycks-math/cases.json
# Needs no Python package: the grader's verdicts are its tests' assertions. Our side is the
# debug `aorlta` that `cargo test` builds anyway; a warm run takes seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
data=examples/qa/hendrycks-math
out="$root/target/hendrycks-math-diff"
mkdir -p "$out"

python3 scripts/hendrycks_math_diff.py corpus --cases "$data/cases.json" --out "$out/pairs.jsonl"
cargo build --quiet --bin aorlta
target/debug/aorlta bench qa --corpus "$out/pairs.jsonl" --profile "$data/profile.yaml" \
  --verdicts "$out/ours.jsonl" >/dev/null
python3 scripts/hendrycks_math_diff.py report --cases "$data/cases.json" --ours "$out/ours.jsonl" \
  --classes "$data/classes.json" --baseline "$data/baseline.json" --report "$data/report.md" "$@"
