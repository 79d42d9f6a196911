#!/usr/bin/env bash
# Creates (or reuses) the trainer venv: the trainers of clients/python/trainer-tests at pinned
# versions, CPU only. It lives outside the clone (CI clones afresh each run) under
# ${XDG_CACHE_HOME:-~/.cache}/aorlta/, in a folder named by the hash of the two requirement
# files: it is rebuilt only when they change, so CI pays the install once. The client package
# is not installed in it (the tests put clients/python on PYTHONPATH). Prints the venv's python
# on stdout; the install time (when it installs) and the venv's size go to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
req="$root/clients/python/trainer-tests/requirements.txt"
nodeps="$root/clients/python/trainer-tests/requirements-nodeps.txt"
key="$(cat "$req" "$nodeps" | sha256sum | cut -c1-16)"
venv="${AORLTA_TRAINER_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/aorlta/trainers-$key}"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.aorlta-key" 2>/dev/null)" = "$key" ]; then
  echo "trainer venv: cached ($venv, key $key)" >&2
else
  rm -rf "$venv"
  mkdir -p "$(dirname "$venv")"
  t0=$(date +%s)
  python3 -m venv "$venv"
  pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input)
  "${pip[@]}" -r "$req" >&2
  "${pip[@]}" --no-deps -r "$nodeps" >&2
  echo "$key" > "$venv/.aorlta-key"
  echo "trainer venv: installed in $(( $(date +%s) - t0 )) s ($(du -sh "$venv" | cut -f1), key $key)" >&2
fi
echo "$venv/bin/python"
