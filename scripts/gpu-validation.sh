#!/bin/bash
# The GPU validation run recorded under docs/runs/ (docs/VALIDATION.md lists them), sized to fit one device call: the
# validation suite, the example pool scored end to end with the pool benchmark (candidates per
# second, the time split, the GPU busy fraction), the 1000-completion mix scored with
# `aorlta score` (end-to-end candidates per second), and the per-task harness overhead with an
# A/A check of many self-timings. Most important first; each step has its own time limit and the
# A/A run takes what is left of DEADLINE, so a slow step cannot starve the ones after it. The log
# and the figures go under $OUT (default runs/gpu-validation) as each step ends: five files.
#   scripts/gpu-validation.sh [BINARIES]   # BINARIES: the folder of aorlta and aorlta-harness
#   DEADLINE=270 (seconds for the whole run)  AA=1000 (self-timings)  FAKE=1 (the fake device)
#   COMPILER=nvrtc (the compiler of CUDA sources in every step, instead of the configs' own)
set -u
cd "$(dirname "$0")/.."
B="$(cd "${1:-target/release}" && pwd)"
OUT="${OUT:-runs/gpu-validation}"; mkdir -p "$OUT"; S="$(mktemp -d)"   # S: each step's own output
export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/log.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$(( ($(date +%s%N) - s) / 1000000 )); echo "rc=$rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"; }
end=$(( SECONDS + ${DEADLINE:-270} ))
cap() { local left=$(( end - SECONDS )); [ "$1" -lt "$left" ] && echo "$1" || echo $(( left > 1 ? left : 1 )); }
gpu=--gpu; speed=configs/kernels-speed-score.yaml; mix=configs/kernels-mix-score.yaml; fake=()
if [ "${FAKE:-0}" = 1 ]; then
  # The same commands on the fake device: run configs that say `fake-gpu: true`.
  gpu=--fake-gpu; fake=(--fake-gpu)
  for c in kernels-speed-score kernels-mix-score; do
    sed 's/^kernel:$/kernel:\n  fake-gpu: true/' "configs/$c.yaml" > "configs/.fake-$c.yaml"
  done
  speed=configs/.fake-kernels-speed-score.yaml; mix=configs/.fake-kernels-mix-score.yaml
fi
comp=()
if [ -n "${COMPILER:-}" ]; then
  comp=(--compiler "$COMPILER")
  sed "s/^kernel:\$/kernel:\n  compiler: $COMPILER/" "$speed" > configs/.compiler-speed.yaml
  sed "s/^kernel:\$/kernel:\n  compiler: $COMPILER/" "$mix" > configs/.compiler-mix.yaml
  speed=configs/.compiler-speed.yaml; mix=configs/.compiler-mix.yaml
fi
if [ "${FAKE:-0}" != 1 ]; then
  date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -2; nproc
fi
echo "== validate"
t timeout "$(cap 100)" "$B/aorlta" validate $gpu "${comp[@]}" --json "$OUT/validate.json" > "$S/validate.txt" 2>&1
cat "$S/validate.txt"; gzip -f "$OUT/validate.json"
if grep -q "harness-failed" "$S/validate.txt"; then
  zcat "$OUT/validate.json.gz" | grep -o '"detail": *"[^"]*"' | sort | uniq -c | head -20
fi
echo "== the example pool, end to end (bench kernels --pool: a scoring run on a fresh cache)"
t timeout "$(cap 25)" "$B/aorlta" bench kernels "${fake[@]}" "${comp[@]}" --pool examples/kernels/pool.jsonl \
  --config "$speed" --json "$OUT/bench-pool.json" > "$S/bench-pool.txt" 2>&1; cat "$S/bench-pool.txt"
echo "== score the mix"; rm -rf runs/kernels-mix-score
t timeout "$(cap 75)" "$B/aorlta" score --quiet "$mix" > "$S/mix.txt" 2>&1; cat "$S/mix.txt"
tar czf "$OUT/rewards.tgz" runs/kernels-mix-score/rewards.jsonl runs/kernels-mix-score/summary.md 2>/dev/null
echo "== bench kernels (per task, A/A)"
aa_s=$(( end - SECONDS - 12 ))
t timeout "$(cap 600)" "$B/aorlta" bench kernels "${fake[@]}" "${comp[@]}" --no-compile --aa "${AA:-1000}" \
  --aa-max-s "$(( aa_s > 5 ? aa_s : 5 ))" --aa-size n=1048576 --json "$OUT/bench.json" > "$S/bench.txt" 2>&1
cat "$S/bench.txt"
rm -f configs/.fake-*.yaml configs/.compiler-*.yaml
