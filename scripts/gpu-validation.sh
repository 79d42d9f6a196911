#!/bin/bash
# The GPU validation run recorded in docs/VALIDATION.md: the validation suite, the example pool and
# the 1000-completion mix scored with the speed profile (end-to-end candidates per second), the
# pool benchmark's time split, the per-task harness overhead with a 1000-timing A/A check, and one
# timecheck. Outputs under $OUT (default runs/gpu-validation).
#   scripts/gpu-validation.sh [BINARIES]     # BINARIES: the folder of aorlta and aorlta-harness
set -u
cd "$(dirname "$0")/.."
B="$(cd "${1:-target/release}" && pwd)"
OUT="${OUT:-runs/gpu-validation}"; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/log.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$(( ($(date +%s%N) - s) / 1000000 )); echo "rc=$rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"; }
date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
nvcc --version | tail -2; nproc
echo "== validate"; t timeout 300 "$B/aorlta" validate --gpu --json "$OUT/validate.json" > "$OUT/validate.txt" 2>&1; cat "$OUT/validate.txt"
gzip -f "$OUT/validate.json"
echo "== score the example pool"; rm -rf runs/kernels-speed-score
t timeout 200 "$B/aorlta" score --quiet configs/kernels-speed-score.yaml > "$OUT/score.txt" 2>&1; cat "$OUT/score.txt"
cp runs/kernels-speed-score/rewards.jsonl "$OUT/score-rewards.jsonl" 2>/dev/null
echo "== score the mix"; rm -rf runs/kernels-mix-score
t timeout 400 "$B/aorlta" score --quiet configs/kernels-mix-score.yaml > "$OUT/mix.txt" 2>&1; cat "$OUT/mix.txt"
gzip -c runs/kernels-mix-score/rewards.jsonl > "$OUT/mix-rewards.jsonl.gz" 2>/dev/null
echo "== bench the mix (fresh cache)"
t timeout 400 "$B/aorlta" bench kernels --pool examples/kernels/pool-mix.jsonl --config configs/kernels-speed-score.yaml --json "$OUT/bench-mix.json" > "$OUT/bench-mix.txt" 2>&1; cat "$OUT/bench-mix.txt"
echo "== timecheck"; (cd examples/kernels && t timeout 60 "$B/aorlta" timecheck --task transpose --candidate candidates/transpose/faster.cu --tasks tasks > "$OUT/timecheck.txt" 2>&1); head -40 "$OUT/timecheck.txt"
echo "== bench kernels (per task, A/A)"
t timeout 400 "$B/aorlta" bench kernels --aa "${AA:-1000}" --aa-size n=1048576 --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1; cat "$OUT/bench.txt"
