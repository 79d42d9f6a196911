#!/usr/bin/env bash
# Installs what the HIP checks need on a Debian machine without an AMD GPU, where missing:
# Debian's hipcc (ROCm 5.2, LLVM 15: gfx90a, gfx940), clang-19 and lld-19 (gfx942, through
# scripts/hip/clang19-genco) and the HIP runtime library (libamdhip64.so.5, whose "no device"
# answer the HIP backend's tests read). About 30 s the first time; nothing when present.
# Prints nothing on success but the hipcc path; progress goes to standard error.
set -euo pipefail
need=()
command -v hipcc >/dev/null || need+=(hipcc)
command -v clang++-19 >/dev/null || need+=(clang-19)
command -v ld.lld-19 >/dev/null || need+=(lld-19)
# clang-19 bundles code objects for several architectures with this tool, from clang-tools-19.
[ -x /usr/lib/llvm-19/bin/clang-offload-bundler ] || need+=(clang-tools-19)
[ -e /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 ] || need+=(libamdhip64-5)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install-hip-compilers: missing ${need[*]} and not root; install them with apt-get" >&2
    exit 1
  fi
  echo "install-hip-compilers: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
command -v hipcc
