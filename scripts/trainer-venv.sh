#!/usr/bin/env bash
# Creates (or reuses) .venv-trainers: the trainers of clients/python/trainer-tests at pinned
# versions, CPU only. The venv is keyed by the hash of the two requirement files: it is rebuilt
# only when they change, so CI pays the install once. Prints the venv's python on stdout; the
# install time (when it installs) and the venv's size go to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
req="$root/clients/python/trainer-tests/requirements.txt"
nodeps="$root/clients/python/trainer-tests/requirements-nodeps.txt"
venv="${AORLTA_TRAINER_VENV:-$root/.venv-trainers}"
key="$(cat "$req" "$nodeps" | sha256sum | cut -c1-16)"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.aorlta-key" 2>/dev/null)" = "$key" ]; then
  echo "trainer venv: cached ($venv, key $key)" >&2
else
  rm -rf "$venv"
  t0=$(date +%s)
  python3 -m venv "$venv"
  pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input)
  "${pip[@]}" -r "$req" >&2
  "${pip[@]}" --no-deps -r "$nodeps" >&2
  "${pip[@]}" --no-deps -e "$root/clients/python" >&2
  echo "$key" > "$venv/.aorlta-key"
  echo "trainer venv: installed in $(( $(date +%s) - t0 )) s ($(du -sh "$venv" | cut -f1), key $key)" >&2
fi
echo "$venv/bin/python"
