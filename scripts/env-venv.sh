#!/usr/bin/env bash
# Creates (or reuses) the environment-standard venv: the RL environment standard of
# clients/python/env-tests (openenv-core) at its pinned version, CPU only. Like the trainer venv
# (scripts/trainer-venv.sh) it lives outside the clone under ${XDG_CACHE_HOME:-~/.cache}/aorlta/,
# in a folder named by the hash of the requirement file, so CI installs it once. The client
# package is not installed in it (the tests put clients/python on PYTHONPATH). Prints the venv's
# python on stdout; the install time (when it installs) and the venv's size go to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
req="$root/clients/python/env-tests/requirements.txt"
key="$(sha256sum < "$req" | cut -c1-16)"
venv="${AORLTA_ENV_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/aorlta/envs-$key}"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.aorlta-key" 2>/dev/null)" = "$key" ]; then
  echo "environment venv: cached ($venv, key $key)" >&2
else
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  t0=$(date +%s)
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req" >&2
  echo "$key" > "$venv/.aorlta-key"
  echo "environment venv: installed in $(( $(date +%s) - t0 )) s ($(du -sh "$venv" | cut -f1), key $key)" >&2
fi
echo "$venv/bin/python"
