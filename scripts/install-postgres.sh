#!/usr/bin/env bash
# Finds the PostgreSQL server binaries the store's tests and `aorlta bench score` start a
# throwaway server with (initdb, pg_ctl, createdb), and installs Debian's `postgresql` where
# they are missing (as root; about 20 s the first time, nothing when present). Prints nothing
# on success but the binaries' folder; progress goes to standard error. `--find-only` installs
# nothing and fails when they are missing.
set -euo pipefail
find_bin() {
  if [ -n "${AORLTA_PG_BIN:-}" ] && [ -x "$AORLTA_PG_BIN/initdb" ] && [ -x "$AORLTA_PG_BIN/pg_ctl" ]; then
    echo "$AORLTA_PG_BIN"; return 0
  fi
  if command -v pg_ctl >/dev/null; then
    local d; d="$(dirname "$(readlink -f "$(command -v pg_ctl)")")"
    if [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  fi
  local best
  best="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$best" ] && [ -x "$best/initdb" ] && [ -x "$best/pg_ctl" ]; then echo "$best"; return 0; fi
  return 1
}
if ! find_bin >/dev/null; then
  if [ "${1:-}" = --find-only ]; then
    exit 1
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "install-postgres: no PostgreSQL server binaries and not root; install Debian's postgresql with apt-get" >&2
    exit 1
  fi
  echo "install-postgres: installing postgresql" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
fi
find_bin
