// @ts-check
/**
 * The environment side of the floor measurement in host-overhead.ts: on each IPC message it
 * waits `gapMs` (as a handler waits on its database) and answers with its own time, so the
 * caller can subtract it and keep only what the hops cost. No other work.
 *
 * argv: <gapMs>
 */
import { performance } from 'node:perf_hooks';

const gapMs = Number(process.argv[2]);
process.on('message', () => {
  const start = performance.now();
  setTimeout(() => process.send?.({ ms: performance.now() - start }), gapMs);
});
