#!/bin/bash
# The GPU validation run recorded in docs/VALIDATION.md: the validation suite, the kernel benchmark (with the A/A check), the example
# pool scored with the speed profile, and one timecheck. Outputs under $OUT.
set -u
cd "$(dirname "$0")/.."
# The binaries: the first argument, default target/release.
B="$(cd "${1:-target/release}" && pwd)"
OUT="${OUT:-runs/gpu-validation}"; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
exec > >(tee "$OUT/log.txt") 2>&1
date -u; nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
nvcc --version | tail -2
s=$(date +%s); timeout 200 "$B/aorlta" validate --gpu --json "$OUT/validate.json" > "$OUT/validate.txt" 2>&1
echo "validate rc=$? in $(( $(date +%s) - s )) s"; cat "$OUT/validate.txt"
s=$(date +%s); timeout 110 "$B/aorlta" score configs/kernels-speed-score.yaml > "$OUT/score.txt" 2>&1
echo "score rc=$? in $(( $(date +%s) - s )) s"; cat "$OUT/score.txt"
cp runs/kernels-speed-score/rewards.jsonl "$OUT/" 2>/dev/null
s=$(date +%s); (cd examples/kernels && timeout 60 "$B/aorlta" timecheck --task transpose --candidate candidates/transpose/faster.cu --tasks tasks > "$OUT/timecheck.txt" 2>&1)
echo "timecheck rc=$? in $(( $(date +%s) - s )) s"; head -40 "$OUT/timecheck.txt"
s=$(date +%s); timeout 200 "$B/aorlta" bench kernels --aa 200 --aa-size n=1048576 --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
echo "bench rc=$? in $(( $(date +%s) - s )) s"; cat "$OUT/bench.txt"
