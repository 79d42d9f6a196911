#!/bin/bash
# The GPU validation run recorded in docs/VALIDATION.md, sized to fit one device call of about
# seven minutes, most important first: the validation suite, the example pool scored with the
# speed profile, the per-task harness overhead with an A/A check of many self-timings, the
# 1000-completion mix scored (end-to-end candidates per second), one timecheck, and the pool
# benchmark's time split on the example pool. Each step has its own time limit, so a slow step cannot starve the ones after
# it; the log and the figures go under $OUT (default runs/gpu-validation) as each step ends: five
# files, inside the device tool's eight.
#   scripts/gpu-validation.sh [BINARIES]     # BINARIES: the folder of aorlta and aorlta-harness
#   AA=1000 (self-timings in the A/A run)    FAKE=1 (a dry run on the fake device, no GPU)
set -u
cd "$(dirname "$0")/.."
B="$(cd "${1:-target/release}" && pwd)"
OUT="${OUT:-runs/gpu-validation}"; mkdir -p "$OUT"; S="$(mktemp -d)"   # S: each step's own output
export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/log.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$(( ($(date +%s%N) - s) / 1000000 )); echo "rc=$rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"; }
gpu=--gpu; speed=configs/kernels-speed-score.yaml; mix=configs/kernels-mix-score.yaml; fake=()
if [ "${FAKE:-0}" = 1 ]; then
  # The same commands on the fake device: run configs that say `fake-gpu: true`.
  gpu=--fake-gpu; fake=(--fake-gpu)
  for c in kernels-speed-score kernels-mix-score; do
    sed 's/^kernel:$/kernel:\n  fake-gpu: true/' "configs/$c.yaml" > "configs/.fake-$c.yaml"
  done
  speed=configs/.fake-kernels-speed-score.yaml; mix=configs/.fake-kernels-mix-score.yaml
else
  date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -2; nproc
fi
echo "== validate"
t timeout "${T_VALIDATE:-150}" "$B/aorlta" validate $gpu --json "$OUT/validate.json" > "$S/validate.txt" 2>&1
cat "$S/validate.txt"; gzip -f "$OUT/validate.json"
echo "== score the example pool"; rm -rf runs/kernels-speed-score
t timeout "${T_POOL:-30}" "$B/aorlta" score --quiet "$speed" > "$S/score.txt" 2>&1; cat "$S/score.txt"
echo "== bench kernels (per task, A/A)"
t timeout "${T_BENCH:-120}" "$B/aorlta" bench kernels "${fake[@]}" --no-compile --aa "${AA:-1000}" --aa-size n=1048576 \
  --json "$OUT/bench.json" > "$S/bench.txt" 2>&1; cat "$S/bench.txt"
echo "== score the mix"; rm -rf runs/kernels-mix-score
t timeout "${T_MIX:-100}" "$B/aorlta" score --quiet "$mix" > "$S/mix.txt" 2>&1; cat "$S/mix.txt"
tar czf "$OUT/rewards.tgz" runs/kernels-speed-score/rewards.jsonl runs/kernels-mix-score/rewards.jsonl \
  runs/kernels-mix-score/summary.md 2>/dev/null
echo "== timecheck"
(cd examples/kernels && t timeout "${T_CHECK:-20}" "$B/aorlta" timecheck "${fake[@]}" --task transpose \
  --candidate candidates/transpose/faster.cu --tasks tasks > "$S/timecheck.txt" 2>&1)
cat "$S/timecheck.txt"
echo "== bench the example pool (fresh cache)"
t timeout "${T_BENCHPOOL:-30}" "$B/aorlta" bench kernels "${fake[@]}" --pool examples/kernels/pool.jsonl \
  --config "$speed" --json "$OUT/bench-pool.json" > "$S/bench-pool.txt" 2>&1; cat "$S/bench-pool.txt"
rm -f configs/.fake-*.yaml
