#!/usr/bin/env bash
# Finds or installs bubblewrap, the jail every compile runs in, and prints its path.
#   - `bwrap` on the PATH at 0.8 or later: that one;
#   - else, as root with apt: Debian's or Ubuntu's `bubblewrap` package, installed;
#   - else Debian's package downloaded (`apt-get download`, no root needed) and its `bwrap`
#     unpacked into .tools/bin/ (ignored), a copy that can be carried to a machine without a
#     package manager (its needs: glibc, libcap2, libselinux1, present on Debian and Ubuntu).
# The service finds it on the PATH, at /usr/bin/bwrap, or where AORLTA_BWRAP says.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
ok() { # a bwrap at 0.8 or later
  local v
  v="$("$1" --version 2>/dev/null | awk '{print $NF}')" || return 1
  [ -n "$v" ] && [ "$(printf '%s\n0.8.0\n' "$v" | sort -V | head -1)" = 0.8.0 ]
}
if p="$(command -v bwrap)" && ok "$p"; then echo "$p"; exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  if ! apt-get install -y -qq bubblewrap >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true
    apt-get install -y -qq bubblewrap >/dev/null
  fi
  p="$(command -v bwrap)" && ok "$p" && { echo "$p"; exit 0; }
fi
tools="$root/.tools"
if ! ok "$tools/bin/bwrap"; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download bubblewrap >/dev/null 2>&1) || {
    echo "install-bwrap: no bwrap on the PATH and none could be downloaded (apt-get download bubblewrap)" >&2
    exit 1
  }
  dpkg-deb -x "$tmp"/bubblewrap_*.deb "$tmp/x"
  mkdir -p "$tools/bin"
  cp "$tmp/x/usr/bin/bwrap" "$tools/bin/bwrap"
fi
ok "$tools/bin/bwrap" || { echo "install-bwrap: $tools/bin/bwrap does not run" >&2; exit 1; }
echo "$tools/bin/bwrap"
