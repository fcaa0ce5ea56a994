#!/usr/bin/env bash
# The conformance suite (test/conformance/) drives the local stand-ins with clients the lab does
# not use itself: botocore and pyqldb (Python), psycopg (a second PostgreSQL driver), psql,
# redis-cli and curl. This makes a virtualenv under .cache/conformance-venv with the pinned
# Python packages from test/conformance/clients/requirements.txt, and checks the command-line
# tools (psql and redis-cli come with the engines' Debian packages; curl must support --aws-sigv4).
# Idempotent: the venv is rebuilt only when the requirements change. Prints what it found.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
req="$root/test/conformance/clients/requirements.txt"
# Each set of requirements gets a venv of its own, and the fixed path the tests use is a symlink
# to the current one: a change of pins builds beside the old venv and swaps the link, so a run
# still using the old one (another checkout, a test in flight) never has it removed under it.
link="$root/.cache/conformance-venv"
name="conformance-venv-$(sha256sum "$req" | cut -c1-12)"
venv="$root/.cache/$name"
stamp="$venv/.requirements"

python="$(command -v python3 || true)"
if [ -z "$python" ]; then
  echo "ensure-conformance-clients: python3 is not on PATH; install it with: sudo apt-get install -y python3 python3-venv" >&2
  exit 1
fi

if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$stamp"; then
  echo "ensure-conformance-clients: installing $(tr '\n' ' ' < "$req")into .cache/$name ..."
  mkdir -p "$root/.cache"
  tmp="$venv.tmp.$$"
  rm -rf "$tmp"
  if ! "$python" -m venv "$tmp" >/dev/null 2>&1; then
    rm -rf "$tmp"
    echo "ensure-conformance-clients: python3 -m venv failed; install it with: sudo apt-get install -y python3-venv" >&2
    exit 1
  fi
  # A failed install leaves no half-made venv behind (its name carries this shell's pid: no later run removes it).
  if ! "$tmp/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"; then
    rm -rf "$tmp"
    echo "ensure-conformance-clients: pip install -r $req failed (see above)" >&2
    exit 1
  fi
  cp "$req" "$tmp/.requirements"
  rm -rf "$venv"
  mv "$tmp" "$venv"
fi
if [ "$(readlink "$link" 2>/dev/null || true)" != "$name" ]; then
  # A venv made before venvs were per requirements sits at the link's path: move it aside.
  if [ -d "$link" ] && [ ! -L "$link" ]; then
    rm -rf "$link.previous"
    mv "$link" "$link.previous"
  fi
  ln -sfn "$name" "$link.new.$$"
  mv -T "$link.new.$$" "$link"
fi
venv="$link"

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
