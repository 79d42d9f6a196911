#!/usr/bin/env bash
# Compiles every HIP source of this example alone, as the compile leg does on AMD:
#
#     hipcc --genco --offload-arch=gfx90a -O3 FILE -o OUT.co
#
# each under `timeout 20` and an 8 GiB address-space limit (the compile bomb must never run
# without them), and prints one line per file: ok, or the expected failure. Exits 1 when a file
# that should compile does not, or one that should fail compiles.
#
#     examples/hip-kernels/check-hipcc.sh [--arch gfx942] [--hipcc /path/to/hipcc]
set -u
here="$(cd "$(dirname "$0")" && pwd)"
arch=gfx90a
hipcc=hipcc
while [ $# -gt 0 ]; do
    case "$1" in
        --arch) arch="$2"; shift 2 ;;
        --hipcc) hipcc="$2"; shift 2 ;;
        *) echo "usage: $0 [--arch ARCH] [--hipcc HIPCC]" >&2; exit 2 ;;
    esac
done
if ! command -v "$hipcc" >/dev/null; then
    echo "no $hipcc on PATH" >&2
    exit 2
fi

# Sources meant not to compile, and how they must fail: `timeout` (killed at 20 s, or out of
# memory under the limit) or `error` (a compile error, quickly).
expected_failure() {
    case "$1" in
        candidates/vector_add/compile-bomb.hip) echo timeout ;;
        candidates/vector_add/include-host-file.hip) echo error ;;
        *) echo "" ;;
    esac
}

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
bad=0
total=0
cd "$here" || exit 2
for f in reference/*.hip candidates/*/*.hip; do
    total=$((total + 1))
    want="$(expected_failure "$f")"
    start=$(date +%s.%N)
    (
        ulimit -v 8388608
        exec timeout 20 "$hipcc" --genco --offload-arch="$arch" -O3 "$f" -o "$out/k.co"
    ) >"$out/log" 2>&1
    rc=$?
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
    if [ $rc -eq 0 ]; then
        got=ok
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ] || grep -qi "out of memory\|std::bad_alloc" "$out/log"; then
        got=timeout
    else
        got=error
    fi
    case "$want:$got" in
        :ok) verdict="pass  compiles" ;;
        timeout:timeout) verdict="pass  fails as intended (stopped by the time or memory limit)" ;;
        error:error) verdict="pass  fails as intended (compile error: $(grep -m1 'error:' "$out/log" | cut -c1-70))" ;;
        :*) verdict="FAIL  does not compile (rc $rc): $(grep -m1 'error' "$out/log" | cut -c1-80)"; bad=$((bad + 1)) ;;
        *) verdict="FAIL  expected to fail ($want), got $got (rc $rc)"; bad=$((bad + 1)) ;;
    esac
    printf '%-46s %6s s  %s\n' "$f" "$secs" "$verdict"
done
echo "$((total - bad)) of $total sources as intended ($("$hipcc" --version 2>/dev/null | grep -m1 -i 'hip version' || echo hipcc), --offload-arch=$arch)"
[ $bad -eq 0 ]
