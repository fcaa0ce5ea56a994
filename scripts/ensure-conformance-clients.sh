#!/usr/bin/env bash
# The conformance suite (test/conformance/) drives the local stand-ins with clients the lab does
# not use itself: botocore and pyqldb (Python), psycopg (a second PostgreSQL driver), psql,
# redis-cli and curl. This makes a virtualenv, linked as .cache/conformance-venv, with the pinned
# Python packages from test/conformance/clients/requirements.txt, and checks the command-line
# tools (psql and redis-cli come with the engines' Debian packages; curl must support --aws-sigv4).
# Idempotent: the venv is made once per user for each set of requirements and Python version.
# Prints what it found.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=lib/user-cache.sh
source "$root/scripts/lib/user-cache.sh"
req="$root/test/conformance/clients/requirements.txt"

python="$(command -v python3 || true)"
if [ -z "$python" ]; then
  echo "ensure-conformance-clients: python3 is not on PATH; install it with: sudo apt-get install -y python3 python3-venv" >&2
  exit 1
fi
# The venv lives in the user cache (scripts/lib/user-cache.sh), one per requirements and Python
# version, and the fixed path the tests use is a symlink to it: a change of pins builds beside the
# old venv and swaps the link, so a run still using the old one (another checkout, a test in
# flight) never has it removed under it, and a fresh clone finds it built.
link="$root/.cache/conformance-venv"
py_version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
name="$(sha256sum "$req" | cut -c1-12)-py$py_version"
installs="$(lab_install_root ensure-conformance-clients "$root")/conformance-venv"
venv="$installs/$name"
stamp="$venv/.requirements"

if [ ! -x "$venv/bin/python" ] || ! cmp -s "$req" "$stamp"; then
  echo "ensure-conformance-clients: installing $(tr '\n' ' ' <"$req")into $venv ..."
  mkdir -p "$installs"
  # Stage beside the target, then rename; a failed install leaves no half-made venv behind.
  tmp="$(lab_staging "$installs")"
  trap 'rm -rf "$tmp"' EXIT
  chmod 755 "$tmp" # mktemp makes it private; the venv is not secret
  # pip 22.3+ installs into another interpreter (--python): the venv then needs no pip of its own,
  # which saves ensurepip's install (5.7 -> 3.7 s of CPU here, pip's cache warm).
  pip_version="$("$python" -c 'import importlib.metadata as m; print(m.version("pip"))' 2>/dev/null || true)"
  if printf '22.3\n%s\n' "$pip_version" | sort -V -C 2>/dev/null && [ -n "$pip_version" ]; then
    venv_args=(--without-pip)
    pip=("$python" -m pip --python "$tmp/bin/python")
  else
    venv_args=()
    pip=("$tmp/bin/python" -m pip)
  fi
  if ! "$python" -m venv ${venv_args[@]+"${venv_args[@]}"} "$tmp" >/dev/null 2>&1; then
    echo "ensure-conformance-clients: python3 -m venv failed; install it with: sudo apt-get install -y python3-venv" >&2
    exit 1
  fi
  if ! "${pip[@]}" install --quiet --disable-pip-version-check -r "$req"; then
    echo "ensure-conformance-clients: pip install -r $req failed (see above)" >&2
    exit 1
  fi
  cp "$req" "$tmp/.requirements"
  # A venv left there without the stamp is no install; then another run may finish first: keep its venv.
  cmp -s "$req" "$stamp" || rm -rf "$venv"
  mv -T "$tmp" "$venv" 2>/dev/null || cmp -s "$req" "$stamp" || {
    echo "ensure-conformance-clients: could not move the venv to $venv" >&2
    exit 1
  }
fi
lab_link "$venv" "$link"
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
