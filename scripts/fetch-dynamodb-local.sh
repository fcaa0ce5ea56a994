#!/usr/bin/env bash
# Fetches Amazon DynamoDB Local from Maven Central, once per user, into
# <user cache>/dynamodb-local/<version>/ (scripts/lib/user-cache.sh), linked as
# .cache/dynamodb-local/<version>:
#   lib/     DynamoDBLocal-<version>.jar and every runtime jar it needs (classpath: lib/*)
#   native/  the sqlite4java native libraries (java.library.path)
# The version is pinned in targets/dynamodb/dynamodb-local/pom.xml. Idempotent: a complete folder
# (marked by .complete) is left as it is, so a warm run, or a fresh clone, costs no Maven start.
# Extra arguments go to mvn, e.g. -Dmaven.repo.local=/tmp/m2 or -o (offline).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pom="$root/targets/dynamodb/dynamodb-local/pom.xml"
version="$(sed -n 's:.*<dynamodb-local.version>\(.*\)</dynamodb-local.version>.*:\1:p' "$pom")"
if [ -z "$version" ]; then
  echo "fetch-dynamodb-local: cannot read <dynamodb-local.version> from $pom" >&2
  exit 1
fi
# shellcheck source=lib/user-cache.sh
source "$root/scripts/lib/user-cache.sh"
link="$root/.cache/dynamodb-local/$version"
cache="$(lab_install_root fetch-dynamodb-local "$root")/dynamodb-local"
dest="$cache/$version"
if [ -f "$dest/.complete" ]; then
  lab_link "$dest" "$link"
  echo "fetch-dynamodb-local: DynamoDB Local $version is already in $dest"
  exit 0
fi
for tool in mvn java; do
  if ! command -v "$tool" >/dev/null; then
    echo "fetch-dynamodb-local: '$tool' is not on PATH (DynamoDB Local needs Maven to fetch and Java 17+ to run)" >&2
    exit 1
  fi
done

mkdir -p "$cache"
# Stage then rename, so a reader never sees a half-copied folder and two concurrent runs cannot mix files.
staging="$(lab_staging "$cache")"
chmod 755 "$staging" # mktemp makes it private; the install is not secret
trap 'rm -rf "$staging"' EXIT

echo "fetch-dynamodb-local: fetching com.amazonaws:DynamoDBLocal:$version from Maven Central into $dest ..."
start=$(date +%s)
# -q leaves only warnings and errors: send them to stderr. Debian's Maven 3.8 prints bare ANSI
# resets even in batch mode, so strip those (pipefail keeps mvn's exit status).
mvn -q -B -f "$pom" "-Dddb.outputDir=$staging" \
  dependency:copy-dependencies@jars dependency:copy-dependencies@natives "$@" 2>&1 |
  sed 's/\x1b\[[0-9;]*m//g' >&2

if [ ! -f "$staging/lib/DynamoDBLocal-$version.jar" ]; then
  echo "fetch-dynamodb-local: Maven finished but $staging/lib/DynamoDBLocal-$version.jar is missing" >&2
  exit 1
fi
if ! compgen -G "$staging/native/libsqlite4java-linux-amd64*.so" >/dev/null; then
  echo "fetch-dynamodb-local: the sqlite4java linux-amd64 native library is missing from $staging/native" >&2
  exit 1
fi
echo "$version" >"$staging/.complete"

if [ -e "$dest" ] && [ ! -f "$dest/.complete" ]; then
  rm -rf "$dest" # leftover of an interrupted older layout
fi
if ! mv -T "$staging" "$dest" 2>/dev/null; then
  # Another run finished first: keep its folder.
  [ -f "$dest/.complete" ] || { echo "fetch-dynamodb-local: could not move $staging to $dest" >&2; exit 1; }
fi
lab_link "$dest" "$link"
echo "fetch-dynamodb-local: done in $(($(date +%s) - start)) s: $(ls "$dest/lib" | wc -l) jars, natives: $(ls "$dest/native" | tr '\n' ' ')"
