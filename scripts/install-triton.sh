#!/usr/bin/env bash
# Installs Triton, at the version the device machine has (3.6.0), from PyPI into a venv outside
# the clone (${XDG_CACHE_HOME:-~/.cache}/aorlta/triton-3.6.0, or $AORLTA_TRITON_VENV), so that
# Triton tasks are compiled for real (to sm_90 cubins, no GPU needed) in the tests. Prints the
# path of the venv's python (for AORLTA_TRITON_PYTHON). Does nothing when it is there.
# Users pin theirs the same way: a venv with `triton==X.Y.Z`, named by kernel.triton-python.
set -euo pipefail
version="3.6.0"
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${AORLTA_TRITON_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/aorlta/triton-$version}"
if ! "$venv/bin/python" -c "import triton, sys; sys.exit(triton.__version__ != '$version')" 2>/dev/null; then
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "triton==$version" >&2
fi
echo "$venv/bin/python"
