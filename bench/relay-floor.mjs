// @ts-check
/**
 * The environment side of the idle floors in host-overhead.ts. On each IPC message it waits
 * `gapMs` (as a handler waits on its database) and answers with its own time, so the caller can
 * subtract it and keep only what the hops cost. No other work. With `sized`, the answer is
 * shaped and sized like the lab's result message (a GET's proxy result, ~0.5 KB). (The lab
 * floor's child is the lab's own runtime worker instead: see startFloor.)
 *
 * argv: <gapMs> [sized]
 */
import { performance } from 'node:perf_hooks';

const gapMs = Number(process.argv[2]);
const sized = process.argv[3] === 'sized';
const body = JSON.stringify({
  GovId: 'OVERHEAD-1764108000000',
  FirstName: 'x',
  timing: { dbMs: 1.234, handlerMs: 1.5, coldStart: false, environment: 'a'.repeat(40) },
});
process.on('message', (/** @type {{ requestId?: string }} */ m) => {
  const start = performance.now();
  setTimeout(() => {
    const ms = performance.now() - start;
    process.send?.(
      sized
        ? {
            type: 'result',
            requestId: m.requestId,
            durationMs: ms,
            maxMemoryUsedMb: 90,
            response: { statusCode: 200, headers: { 'content-type': 'application/json' }, body },
            ms,
          }
        : { ms, response: { statusCode: 200 } },
    );
  }, gapMs);
});
process.send?.({ type: 'ready' });
