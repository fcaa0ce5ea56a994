#!/usr/bin/env bash
# npm test: the fast tier. Biome first (seconds; a lint error fails the run before anything
# starts), then tsc beside Vitest rather than before it: Vitest's first seconds (installs
# checked, the lab's synth) and its waits (engines, timeouts) leave a core free. tsc is
# incremental: its build info in .cache/ lets a run re-check only what changed since the last
# (every file whose text or whose dependencies' text changed, node_modules' types included);
# a fresh clone has none and checks everything. Arguments go to vitest. Fails if either fails;
# tsc's errors print after Vitest's.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run -s lint || exit $?
mkdir -p .cache
tsc_log=".cache/tsc-fast-tier.log"
npx tsc --noEmit -p . --incremental --tsBuildInfoFile .cache/tsc-fast-tier.tsbuildinfo >"$tsc_log" 2>&1 &
tsc_pid=$!
# Ctrl-C or a kill of the run ends tsc too.
trap 'kill "$tsc_pid" 2>/dev/null' INT TERM
npx vitest run "$@"
tests=$?
wait "$tsc_pid"
tsc=$?
if [ "$tsc" -ne 0 ]; then
  cat "$tsc_log"
  echo "tsc --noEmit failed (exit $tsc): the type errors are above" >&2
fi
[ "$tests" -eq 0 ] && [ "$tsc" -eq 0 ]
