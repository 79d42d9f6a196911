#!/usr/bin/env bash
# Finds the Chromium the inspector's browser test drives (tests/browser), and installs Debian's
# `chromium` where it is missing (as root, with apt; nothing when present). Prints nothing on
# success but the browser's path; progress goes to standard error. Fails, saying why, when it is
# missing and this is not root. `$AORLTA_CHROMIUM`, when set, names the browser.
set -euo pipefail
if [ -n "${AORLTA_CHROMIUM:-}" ] && [ -x "$AORLTA_CHROMIUM" ]; then
  echo "$AORLTA_CHROMIUM"; exit 0
fi
if command -v chromium >/dev/null; then
  command -v chromium; exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-chromium: no chromium and not root; install Debian's chromium with apt-get" >&2
  exit 1
fi
echo "install-chromium: installing chromium" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q chromium >&2
command -v chromium
