#!/usr/bin/env bash
# The redis target runs against a real redis-server, from Debian's package redis-server.
# Finds it on PATH; when missing and we are root with apt-get, installs it; otherwise prints the
# one command to run and exits 1. The lab starts its own server (targets/redis/engine.ts), so a
# service the package starts on install is stopped again. Idempotent; prints the version found.
set -euo pipefail

report() {
  echo "ensure-redis: $(redis-server --version | head -n 1)"
}

if command -v redis-server >/dev/null 2>&1; then
  report
  exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-redis: redis-server is not on PATH; install it with: sudo apt-get install -y redis-server" >&2
  exit 1
fi

echo "ensure-redis: installing redis-server (Debian package) for the redis target and its tests ..."
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null

# The package's maintainer script may have started the Debian service (where invoke-rc.d is
# allowed to). Stop that one by its pidfile, and only when the PID really is a redis-server.
pidfile=/run/redis/redis-server.pid
if [ -f "$pidfile" ]; then
  pid="$(cat "$pidfile")"
  if [ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && grep -q '^redis-server' "/proc/$pid/comm"; then
    kill "$pid"
    for _ in $(seq 1 50); do
      [ -e "/proc/$pid" ] || break
      sleep 0.1
    done
    echo "ensure-redis: stopped the redis-server service the package started (pid $pid)"
  fi
fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "ensure-redis: apt-get installed redis-server but it is not on PATH" >&2
  exit 1
fi
report
