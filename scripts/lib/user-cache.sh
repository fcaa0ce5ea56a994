# Sourced by the scripts that install what never changes between clones (PostgreSQL 16,
# DynamoDB Local, the conformance clients' venv). Each install lives once per user, keyed by its
# version, as Playwright's browsers, pip's wheels and Maven's ~/.m2 do, and each clone's old path
# (.cache/postgres-16, ...) is a symlink to it: a fresh clone or worktree re-fetches nothing.
#   ${LAB_CACHE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/serverless-db-latency-lab}
# Removing that folder removes them all; the next run fetches them again.

# The per-user folder (nothing is created).
lab_cache_home() {
  echo "${LAB_CACHE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/serverless-db-latency-lab}"
}

# lab_install_root NAME PROJECT_ROOT: the folder to install into. The per-user folder when it can
# be written; else PROJECT_ROOT/.cache/installs, with one line on stderr saying so (a read-only
# home still gets working tests, only not shared between clones).
lab_install_root() {
  local name="$1" project="$2" home probe
  home="$(lab_cache_home)"
  # Write a probe rather than test -w: root passes -w on a read-only mount.
  if mkdir -p "$home" 2>/dev/null && probe="$(mktemp -d "$home/.probe.XXXXXX" 2>/dev/null)"; then
    rmdir "$probe"
    echo "$home"
    return 0
  fi
  echo "$name: cannot write the user cache $home: installing into $project/.cache/installs (this clone only)" >&2
  mkdir -p "$project/.cache/installs" && echo "$project/.cache/installs"
}

# lab_link TARGET LINK: points LINK at TARGET, a complete install. Replaces an older link, or a
# real folder an older clone's layout left at LINK; never anything while TARGET is missing.
lab_link() {
  local target="$1" link="$2"
  if [ ! -d "$target" ]; then
    echo "lab_link: $target is not an install: $link left as it is" >&2
    return 1
  fi
  [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ] && return 0
  mkdir -p "$(dirname "$link")"
  # Build the link beside it, then rename it over: a reader sees the old path or the new, never none.
  ln -sfn "$target" "$link.new.$$"
  _lab_swap "$link.new.$$" "$link"
}

# lab_copy TARGET PATH: puts at PATH a folder of its own with TARGET's files, hard links where one
# file system holds both (no bytes copied), else a copy, for a user who cannot reach TARGET.
# TARGET is written in PATH/.source: a copy of the same TARGET is kept as it is.
lab_copy() {
  local target="$1" path="$2" stage
  if [ ! -d "$target" ]; then
    echo "lab_copy: $target is not an install: $path left as it is" >&2
    return 1
  fi
  [ ! -L "$path" ] && [ "$(cat "$path/.source" 2>/dev/null)" = "$target" ] && return 0
  mkdir -p "$(dirname "$path")"
  stage="$(mktemp -d "$path.new.XXXXXX")"
  chmod 755 "$stage" # mktemp makes it private; the copy is for another user
  if ! cp -al "$target/." "$stage/" 2>/dev/null; then
    rm -rf "$stage" && mkdir -m 755 "$stage"
    cp -a "$target/." "$stage/"
  fi
  echo "$target" >"$stage/.source"
  _lab_swap "$stage" "$path"
}

# lab_staging DIR: a new private staging folder in DIR (printed), after removing the ones a killed
# run left there: a fetch stopped by SIGKILL never runs its EXIT trap. Only those untouched for
# LAB_STAGING_STALE_MIN minutes (default 120) go: a fetch still running beside this one keeps its own.
lab_staging() {
  local dir="$1"
  find "$dir" -mindepth 1 -maxdepth 1 -name '.staging.*' -mmin "+${LAB_STAGING_STALE_MIN:-120}" \
    -exec rm -rf {} + 2>/dev/null || true
  mktemp -d "$dir/.staging.XXXXXX"
}

# _lab_swap NEW PATH: renames NEW (a link or a folder) to PATH, whatever PATH is now.
_lab_swap() {
  local new="$1" path="$2"
  if [ -d "$path" ] && [ ! -L "$path" ] || { [ -d "$new" ] && [ ! -L "$new" ] && [ -L "$path" ]; }; then
    # rename(2) puts neither a link over a folder nor a folder over a link: move PATH aside
    # first, remove it after (a run beside this one may have moved it already).
    mv -T "$path" "$path.old.$$" 2>/dev/null || true
    mv -T "$new" "$path"
    rm -rf "$path.old.$$"
  else
    mv -T "$new" "$path"
  fi
}
