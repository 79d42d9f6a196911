#!/bin/bash
# The GPU runs recorded under docs/runs/, in one script: a run is a list of steps, each writing its
# figures as JSON under $OUT, and scripts/render-run.py turns $OUT into the run's Markdown file.
#
#   scripts/gpu.sh [options] STEP...
#     --bin DIR        the folder of aorlta and aorlta-harness (default target/release)
#     --out DIR        where the figures go (default runs/gpu-<date>)
#     --deadline S     seconds for the whole run (default 540: one device call); each step gets its
#                      own limit, capped by what is left, so a slow step cannot starve the next
#     --fake           the same commands on the fake device (the configs get `fake-gpu: true`)
#     --compiler C     the compiler of CUDA sources in every step (nvcc, nvrtc), not the configs'
#
#   Steps (NAME[:ARG[:ARG]]), each a command of the CLI with --json where it has one:
#     validate:SUITE[:COMPILER]    aorlta validate over examples/SUITE/validation.yaml
#     pool:SUITE:CONFIG            aorlta bench kernels --pool examples/SUITE/pool.jsonl --config CONFIG
#     score:CONFIG                 aorlta score CONFIG (its summary.md and rewards.jsonl kept)
#     aa:N[:SIZE[:TASK]]           aorlta bench kernels --no-compile --aa N (A/A self-timings of TASK,
#                                  default vector_add, at SIZE, default n=1048576)
#     aaplain:N[:SIZE[:TASK]]      the same with the timing leg's `symmetric: false` (--aa-plain)
#     check:FOLDER:PROFILE         aorlta task check over a folder of tasks
#     timecheck:SUITE:CONFIG       aorlta timecheck --pool over examples/SUITE/pool.jsonl
#     power:N                      the HIP power case (transpose/tiled-power at ratio 1.05) N times
#     episodes                     scripts/episodes.py: a scripted three-turn episode per language
#                                  (CUDA, Triton, Q&A) through aorlta serve, its feedback checked
#                                  (turn 1 names the failing size and input family, turn 3 the
#                                  speedup and bandwidth, no turn a seed); its answers under $OUT
#   Plans (the runs docs/runs/ holds, by name):
#     validation  = validate:kernels pool:kernels:configs/kernels-speed-score.yaml
#                   score:configs/kernels-mix-score.yaml aa:1000
#     hip         = validate:hip-kernels power:10 score:configs/hipk-speed-score.yaml
#                   timecheck:hip-kernels:configs/hipk-speed-score.yaml
#     library     = check:examples/library/tasks:examples/library/profile.yaml validate:library
#                   score:configs/library-score.yaml
#     triton      = validate:triton-kernels score:configs/tritonk-speed-score.yaml validate:kernels
#     compilers   = validate:kernels:nvrtc validate:kernels:nvcc validate:library:nvrtc validate:library:nvcc
#     jail        = validate:kernels validate:hip-kernels validate:triton-kernels validate:library
#     sides       = A/A with and without --aa-plain, vector_add at 2^16, 2^20, 2^24, and softmax
#     ncu         = score:configs/library-ncu-score.yaml (the kernel-profile leg: Nsight Compute's
#                   figures for two library kernels, in rewards.jsonl and the feedback)
#     torch       = check:examples/torch-problems/tasks:examples/kernels/profile-speed.yaml
#                   score:configs/torch-speed-score.yaml score:configs/torch-compile-score.yaml
#                   (PyTorch references: the Python with torch is $AORLTA_TORCH_PYTHON, else the
#                   device machine's /opt/torch/.venv/bin/python)
#
# Then: python3 scripts/render-run.py $OUT > docs/runs/DATE-NAME.md (and a row in
# docs/VALIDATION.md's "Runs"). Everything printed also goes to $OUT/log.txt.
set -u
cd "$(dirname "$0")/.."
bin=target/release; out=""; deadline=540; fake=0; compiler=""
steps=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --deadline) deadline="$2"; shift 2 ;;
    --fake) fake=1; shift ;;
    --compiler) compiler="$2"; shift 2 ;;
    validation) steps+=(validate:kernels pool:kernels:configs/kernels-speed-score.yaml score:configs/kernels-mix-score.yaml aa:1000); shift ;;
    hip) steps+=(validate:hip-kernels power:10 score:configs/hipk-speed-score.yaml timecheck:hip-kernels:configs/hipk-speed-score.yaml); shift ;;
    library) steps+=(check:examples/library/tasks:examples/library/profile.yaml validate:library score:configs/library-score.yaml); shift ;;
    triton) steps+=(validate:triton-kernels score:configs/tritonk-speed-score.yaml validate:kernels); shift ;;
    compilers) steps+=(validate:kernels:nvrtc validate:kernels:nvcc validate:library:nvrtc validate:library:nvcc); shift ;;
    jail) steps+=(validate:kernels validate:hip-kernels validate:triton-kernels validate:library); shift ;;
    sides) for size in n=65536 n=1048576 n=16777216; do steps+=("aa:300:$size" "aaplain:300:$size"); done
           steps+=(aa:300:rows=4096:softmax aaplain:300:rows=4096:softmax); shift ;;
    ncu) steps+=(score:configs/library-ncu-score.yaml); shift ;;
    torch) steps+=(check:examples/torch-problems/tasks:examples/kernels/profile-speed.yaml
                   score:configs/torch-speed-score.yaml score:configs/torch-compile-score.yaml); shift ;;
    -*) echo "unknown option $1 (see the head of $0)" >&2; exit 2 ;;
    *) steps+=("$1"); shift ;;
  esac
done
[ ${#steps[@]} -gt 0 ] || { echo "no step given (see the head of $0)" >&2; exit 2; }
B="$(cd "$bin" && pwd)" || { echo "no folder $bin" >&2; exit 2; }
out="${out:-runs/gpu-$(date -u +%Y-%m-%d-%H%M)}"; mkdir -p "$out"; OUT="$(cd "$out" && pwd)"
export PATH=/usr/local/cuda/bin:$PATH
# The compile jail: a bwrap on the machine, else the copy scripts/install-bwrap.sh unpacked into
# .tools/bin (carry `.tools` to a machine without a package manager).
if ! command -v bwrap >/dev/null && [ -x .tools/bin/bwrap ]; then export AORLTA_BWRAP="$PWD/.tools/bin/bwrap"; fi
if [ -z "${AORLTA_TORCH_PYTHON:-}" ] && [ -x /opt/torch/.venv/bin/python ]; then
  export AORLTA_TORCH_PYTHON=/opt/torch/.venv/bin/python
fi
# Triton (the Triton steps and `episodes`): the Python that kernel.triton-python or
# $AORLTA_TRITON_PYTHON names, else python3; where python3 has no Triton, torch's venv when it has.
if [ -z "${AORLTA_TRITON_PYTHON:-}" ] && ! python3 -c 'import triton' 2>/dev/null \
   && [ -x /opt/torch/.venv/bin/python ] && /opt/torch/.venv/bin/python -c 'import triton' 2>/dev/null; then
  export AORLTA_TRITON_PYTHON=/opt/torch/.venv/bin/python
fi
exec > >(tee "$OUT/log.txt") 2>&1
end=$(( SECONDS + deadline ))
cap() { local left=$(( end - SECONDS )); [ "$1" -lt "$left" ] && echo "$1" || echo $(( left > 1 ? left : 1 )); }

# A config with the run's device and compiler written into its `kernel:` section.
config() {
  local c="$1" tmp
  [ "$fake" = 1 ] || [ -n "$compiler" ] || { echo "$c"; return; }
  tmp="configs/.gpu-$(basename "$c")"
  cp "$c" "$tmp"
  [ "$fake" = 1 ] && sed -i 's/^kernel:$/kernel:\n  fake-gpu: true/' "$tmp"
  [ -n "$compiler" ] && sed -i "s/^kernel:\$/kernel:\n  compiler: $compiler/" "$tmp"
  echo "$tmp"
}
dev=(--gpu); fakeflag=()
[ "$fake" = 1 ] && { dev=(--fake-gpu); fakeflag=(--fake-gpu); }
comp=(); [ -n "$compiler" ] && comp=(--compiler "$compiler")

# The run's description, for the renderer.
{
  echo "{\"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"commit\": \"$(git rev-parse --short HEAD 2>/dev/null || echo unknown)\","
  echo " \"fake\": $([ "$fake" = 1 ] && echo true || echo false), \"compiler\": \"${compiler:-as configured}\","
  if [ "$fake" != 1 ] && command -v nvidia-smi >/dev/null; then
    echo " \"gpu\": \"$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | head -1)\","
  else
    echo " \"gpu\": \"none (fake device)\","
  fi
  echo " \"nvcc\": \"$(nvcc --version 2>/dev/null | tail -1)\", \"cpus\": $(nproc), \"steps\": \"${steps[*]}\"}"
} > "$OUT/meta.json"
cat "$OUT/meta.json"

n=0
for step in "${steps[@]}"; do
  n=$((n + 1)); IFS=: read -r name a b <<< "$step"; tag=$(printf "%02d-%s" "$n" "$name")
  echo "== [$n/${#steps[@]}] $step"
  s0=$(date +%s%N)
  case "$name" in
    validate)
      c=("${comp[@]}"); [ -n "${b:-}" ] && c=(--compiler "$b")
      timeout "$(cap 240)" "$B/aorlta" validate "${dev[@]}" "${c[@]}" --suite "examples/$a/validation.yaml" \
        --json "$OUT/$tag-$a${b:+-$b}.validate.json" | tail -3 ;;
    pool)
      timeout "$(cap 60)" "$B/aorlta" bench kernels "${fakeflag[@]}" "${comp[@]}" --pool "examples/$a/pool.jsonl" \
        --config "$(config "$b")" --json "$OUT/$tag.bench.json" ;;
    score)
      # The run folder is the config's `out:`, relative to the config's folder.
      d="$(dirname "$a")/$(sed -n 's/^out: *//p' "$a" | head -1)"; rm -rf "$d"
      timeout "$(cap 180)" "$B/aorlta" score --quiet "$(config "$a")" | tail -5
      mkdir -p "$OUT/$tag"
      cp "$d/summary.md" "$OUT/$tag/" 2>/dev/null; gzip -c "$d/rewards.jsonl" > "$OUT/$tag/rewards.jsonl.gz" 2>/dev/null ;;
    aa|aaplain)
      IFS=: read -r _ _ size task <<< "$step"
      sym=(); [ "$name" = aaplain ] && sym=(--aa-plain)
      left=$(( end - SECONDS - 12 ))
      timeout "$(cap 600)" "$B/aorlta" bench kernels "${fakeflag[@]}" "${comp[@]}" --no-compile --aa "${a:-1000}" \
        --aa-task "${task:-vector_add}" --aa-size "${size:-n=1048576}" "${sym[@]}" \
        --aa-max-s "$(( left > 5 ? left : 5 ))" --json "$OUT/$tag.bench.json" | tail -12 ;;
    check)
      timeout "$(cap 240)" "$B/aorlta" task check "${dev[@]}" --profile "$b" --json "$OUT/$tag.check.json" "$a" | tail -40 ;;
    timecheck)
      timeout "$(cap 90)" "$B/aorlta" timecheck "${fakeflag[@]}" --pool "examples/$a/pool.jsonl" \
        --tasks "examples/$a/tasks" --config "$(config "$b")" | tee "$OUT/$tag.timecheck.txt" | tail -20 ;;
    power)
      for i in $(seq "${a:-10}"); do
        timeout "$(cap 20)" "$B/aorlta" timecheck "${fakeflag[@]}" --task transpose \
          --candidate examples/hip-kernels/candidates/transpose/tiled-power.hip --tasks examples/hip-kernels/tasks \
          --config "$(config configs/hipk-speed-score.yaml)" --ratio 1.05 2>&1 | head -1
      done | tee "$OUT/$tag.power.txt"
      echo "power: $(grep -c ': faster' "$OUT/$tag.power.txt") of ${a:-10} faster" ;;
    episodes)
      ep=("${comp[@]}"); [ "$fake" = 1 ] && ep+=(--fake)
      timeout "$(cap 240)" python3 scripts/episodes.py --bin "$B" --out "$OUT/$tag" "${ep[@]}" ;;
    *) echo "unknown step $name (see the head of $0)"; false ;;
  esac
  rc=$?
  ms=$(( ($(date +%s%N) - s0) / 1000000 ))
  echo "{\"step\": \"$step\", \"rc\": $rc, \"seconds\": $((ms / 1000)).$(printf %03d $((ms % 1000)))}" >> "$OUT/steps.jsonl"
  echo "rc=$rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
done
rm -f configs/.gpu-*.yaml
echo "figures in $OUT; render: python3 scripts/render-run.py $OUT"
