# Sourced by the one-call GPU scripts (gpu-triton.sh, gpu-library.sh, gpu-compilers.sh):
#   source "$(dirname "$0")/gpu-run.sh" DEFAULT_OUT [BINARIES]
# Moves to the repository root; sets B (the folder of aorlta and aorlta-harness, default
# target/release) and OUT (default DEFAULT_OUT; made); puts the CUDA toolkit on PATH; copies
# everything printed to $OUT/log.txt; finds the compile jail (bwrap, or .tools/bin/bwrap); defines `t CMD...` (runs CMD, then prints `rc=N in S s`);
# prints the date and the GPU.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
B="$(cd "${2:-target/release}" && pwd)"
OUT="${OUT:-$1}"; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
# The compile jail: a bwrap on the machine, else the copy scripts/install-bwrap.sh unpacked into
# .tools/bin (carry `.tools` to a machine without a package manager).
if ! command -v bwrap >/dev/null && [ -x .tools/bin/bwrap ]; then export AORLTA_BWRAP="$PWD/.tools/bin/bwrap"; fi
exec > >(tee "$OUT/log.txt") 2>&1
t() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$(( ($(date +%s%N) - s) / 1000000 )); echo "rc=$rc in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"; }
date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
