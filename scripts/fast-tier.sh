#!/usr/bin/env bash
# npm test: the fast tier. Biome first (seconds; a lint error fails the run before anything
# starts), then tsc beside Vitest rather than before it: tsc is ~17 s of one core, and Vitest's
# first seconds (installs checked, the lab's synth) and its waits (engines, timeouts) leave a
# core free. Arguments go to vitest. Fails if either fails; tsc's errors print after Vitest's.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-chromium.sh || exit $?
npm run -s lint || exit $?
mkdir -p .cache
tsc_log=".cache/tsc-fast-tier.log"
npx tsc --noEmit -p . >"$tsc_log" 2>&1 &
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
