#!/usr/bin/env bash
# The slow tier's report test renders report.html in headless Chromium, from Debian's package
# (npm run test:slow runs this first).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Chromium (Debian package chromium) for the report test ..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  command -v chromium >/dev/null
else
  echo "The report test needs Chromium: sudo apt-get install -y chromium" >&2
  exit 1
fi
