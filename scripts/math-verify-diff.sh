#!/usr/bin/env bash
# The differential test of the Q&A verdicts against Math-Verify (PyPI `math-verify`).
#   scripts/math-verify-diff.sh            # score the corpus with both, write the report
#   scripts/math-verify-diff.sh --check    # also fail if a case marked ours-right regressed,
#                                          # agreement fell under 95%, or we accept more than
#                                          # one wrong answer per 250 pairs (what CI runs)
#   scripts/math-verify-diff.sh --update   # rewrite the baseline of ours-right cases
# Cached and fast: the venv (.venv-mathverify) is made once per Math-Verify version, its
# verdicts are cached per (version, reference, completion) under ~/.cache/aorlta/math-verify,
# and our side is the debug `aorlta` (`$AORLTA_BIN` when set). A cold run on 2 cores
# takes a few minutes (mostly Math-Verify); a warm one seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
MV_VERSION=0.9.0
venv="$root/.venv-mathverify"
corpus=examples/qa/corpus/pairs.jsonl
out="$root/target/math-verify-diff"
mkdir -p "$out"

if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('math-verify') != '$MV_VERSION')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "math-verify==$MV_VERSION"
fi

python3 examples/qa/corpus/make_corpus.py --check
# AORLTA_BIN: a binary already built (scripts/test passes the one `cargo test` built, whose
# dev-dependency features differ from a plain `cargo build`'s, which would rebuild the workspace).
aorlta="${AORLTA_BIN:-}"
if [ -z "$aorlta" ]; then
  cargo build --quiet --bin aorlta
  aorlta=target/debug/aorlta
fi
"$aorlta" bench qa --corpus "$corpus" --profile examples/qa/profile.yaml \
  --verdicts "$out/ours.jsonl"
"$venv/bin/python" scripts/math_verify_diff.py --corpus "$corpus" --ours "$out/ours.jsonl" \
  --report examples/qa/corpus/report.md --baseline examples/qa/corpus/baseline.json "$@"
