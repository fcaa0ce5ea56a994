#!/usr/bin/env bash
# The conformance suite (test/conformance/) drives the local stand-ins with clients the lab does
# not use itself: botocore and pyqldb (Python), psycopg (a second PostgreSQL driver), psql,
# redis-cli and curl. This makes a virtualenv under .cache/conformance-venv with the pinned
# Python packages from test/conformance/clients/requirements.txt, and checks the command-line
# tools (psql and redis-cli come with the engines' Debian packages; curl must support --aws-sigv4).
# Idempotent: the venv is rebuilt only when the requirements change. Prints what it found.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.cache/conformance-venv"
req="$root/test/conformance/clients/requirements.txt"
stamp="$venv/.requirements"

python="$(command -v python3 || true)"
if [ -z "$python" ]; then
  echo "ensure-conformance-clients: python3 is not on PATH; install it with: sudo apt-get install -y python3 python3-venv" >&2
  exit 1
fi

if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$stamp"; then
  echo "ensure-conformance-clients: installing $(tr '\n' ' ' < "$req")into .cache/conformance-venv ..."
  rm -rf "$venv"
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    echo "ensure-conformance-clients: python3 -m venv failed; install it with: sudo apt-get install -y python3-venv" >&2
    exit 1
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
fi

if ! curl --help all 2>/dev/null | grep -q -- '--aws-sigv4'; then
  echo "ensure-conformance-clients: curl has no --aws-sigv4 (needs curl 7.75+); install it with: sudo apt-get install -y curl" >&2
  exit 1
fi
for tool in psql redis-cli; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "ensure-conformance-clients: $tool is not on PATH (run scripts/ensure-postgres.sh and scripts/ensure-redis.sh)" >&2
    exit 1
  fi
done
echo "ensure-conformance-clients: $("$venv/bin/python" -c 'import botocore, pyqldb, psycopg; print("botocore", botocore.__version__, "psycopg", psycopg.__version__, "pyqldb ok")'), $(curl --version | head -n 1 | cut -d' ' -f1-2), $(psql --version), $(redis-cli --version)"
