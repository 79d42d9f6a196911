#!/bin/bash
# The CUDA example suite and the task library's suite, each validated twice on the GPU, once per
# compiler of CUDA sources (NVRTC, nvcc), for a run file under docs/runs/: the speedups the timing leg
# measures for the same sources under the two compilers. Output under $OUT (default
# runs/gpu-compilers): validate-<suite>-<compiler>.json and a table of s per timed case.
#   scripts/gpu-compilers.sh [BINARIES]   # BINARIES: the folder of aorlta and aorlta-harness
set -u
source "$(dirname "$0")/gpu-run.sh" runs/gpu-compilers "${1:-}"
for suite in kernels library; do
    file=examples/$suite/validation.yaml
    for c in nvrtc nvcc; do
        echo "== $suite with $c"
        timeout 200 "$B/aorlta" validate --gpu --compiler "$c" --suite "$file" --json "$OUT/validate-$suite-$c.json" | tail -1
    done
done
python3 - "$OUT" <<'PY'
import json, re, sys
out = sys.argv[1]
rows = []
for suite in ("kernels", "library"):
    s = {}
    for c in ("nvrtc", "nvcc"):
        for case in json.load(open(f"{out}/validate-{suite}-{c}.json")):
            m = re.search(r"s=([0-9.]+)", case["got"])
            if m:
                s.setdefault(case["id"], {})[c] = (float(m.group(1)), case["got"].split(" s=")[0].split("time ")[-1])
    for cid, v in s.items():
        if "nvrtc" in v and "nvcc" in v:
            rows.append((suite, cid, v["nvrtc"], v["nvcc"]))
print("| suite | case | s (NVRTC) | s (nvcc) | nvcc / NVRTC |")
print("|---|---|---:|---:|---:|")
for suite, cid, a, b in rows:
    print(f"| {suite} | {cid} | {a[0]:.3f} {a[1]} | {b[0]:.3f} {b[1]} | {b[0] / a[0]:.3f} |")
ratios = sorted(b[0] / a[0] for _, _, a, b in rows)
n = len(ratios)
print(f"\n{n} timed cases; nvcc / NVRTC ratio of s: min {ratios[0]:.3f}, median {ratios[n // 2]:.3f}, max {ratios[-1]:.3f}; "
      f"{sum(r > 1.05 for r in ratios)} above 1.05, {sum(r < 0.95 for r in ratios)} below 0.95")
PY
