#!/bin/bash
# The HIP example's GPU run recorded under docs/runs/ (docs/VALIDATION.md lists them) ("HIP source on NVIDIA" on an NVIDIA
# GPU: the HIP sources compiled by nvcc through AORLTA's portability header, run by the CUDA
# backend; it proves the pipeline, not AMD timings). Three steps, each with its own time limit:
# the HIP validation suite, the HIP example pool scored with `aorlta score`, and every kernel of
# that pool timed with `aorlta timecheck --pool`. Output under $OUT (default
# runs/gpu-validation-hip): log.txt, validate.json.gz, rewards.tgz.
#   scripts/gpu-validation-hip.sh [BINARIES]   # BINARIES: the folder of aorlta and aorlta-harness
#   DEADLINE=200 (seconds for the whole run)  FAKE=1 (the fake device)
#   POWER=10 (timings of the power case, transpose/tiled-power at ratio 1.05, after the suite)
set -u
cd "$(dirname "$0")/.."
B="$(cd "${1:-target/release}" && pwd)"
OUT="${OUT:-runs/gpu-validation-hip}"; mkdir -p "$OUT"; S="$(mktemp -d)"
export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/log.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$(( ($(date +%s%N) - s) / 1000000 )); echo "rc=$rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"; }
end=$(( SECONDS + ${DEADLINE:-200} ))
cap() { local left=$(( end - SECONDS )); [ "$1" -lt "$left" ] && echo "$1" || echo $(( left > 1 ? left : 1 )); }
gpu=--gpu; speed=configs/hipk-speed-score.yaml; fake=()
if [ "${FAKE:-0}" = 1 ]; then
  gpu=--fake-gpu; fake=(--fake-gpu)
  sed 's/^kernel:$/kernel:\n  fake-gpu: true/' configs/hipk-speed-score.yaml > configs/.fake-hipk-speed-score.yaml
  speed=configs/.fake-hipk-speed-score.yaml
else
  date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  nvcc --version | tail -2
fi
echo "== validate the HIP suite (HIP source on NVIDIA)"
t timeout "$(cap 110)" "$B/aorlta" validate $gpu --suite examples/hip-kernels/validation.yaml \
  --json "$OUT/validate.json" > "$S/validate.txt" 2>&1
cat "$S/validate.txt"; gzip -f "$OUT/validate.json"
echo "== the power case: transpose/tiled-power (truly about 1.14x) at ratio 1.05, ${POWER:-10} times"
for i in $(seq "${POWER:-10}"); do
  timeout "$(cap 20)" "$B/aorlta" timecheck "${fake[@]}" --task transpose \
    --candidate examples/hip-kernels/candidates/transpose/tiled-power.hip \
    --tasks examples/hip-kernels/tasks --config "$speed" --ratio 1.05 2>&1 | head -1
done | tee "$S/power.txt"
echo "power: $(grep -c ': faster' "$S/power.txt") of ${POWER:-10} faster"
echo "== score the HIP example pool"; rm -rf runs/hipk-speed-score
t timeout "$(cap 60)" "$B/aorlta" score "$speed" > "$S/score.txt" 2>&1; cat "$S/score.txt"
cat runs/hipk-speed-score/summary.md 2>/dev/null
tar czf "$OUT/rewards.tgz" runs/hipk-speed-score/rewards.jsonl runs/hipk-speed-score/summary.md 2>/dev/null
echo "== timecheck --pool (every kernel of the pool against its reference)"
t timeout "$(cap 90)" "$B/aorlta" timecheck "${fake[@]}" --pool examples/hip-kernels/pool.jsonl \
  --tasks examples/hip-kernels/tasks --config "$speed" > "$S/timecheck.txt" 2>&1
cat "$S/timecheck.txt"
rm -f configs/.fake-*.yaml
