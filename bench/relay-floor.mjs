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

const [gapArg, sizedArg] = process.argv.slice(2);
const gapMs = Number(gapArg);
const sized = sizedArg === 'sized';
const body = JSON.stringify({
  GovId: 'OVERHEAD-1764108000000',
  FirstName: 'x',
  timing: { dbMs: 1.234, handlerMs: 1.5, coldStart: false, environment: 'a'.repeat(40) },
});
const sleep = () =>
  new Promise((resolve) =>
    setTimeout(
      () => resolve({ statusCode: 200, headers: { 'content-type': 'application/json' }, body }),
      gapMs,
    ),
  );

process.on('message', async (/** @type {any} */ m) => {
  const start = performance.now();
  /** @type {any} */
  const response = await sleep();
  const ms = performance.now() - start;
  process.send?.(
    sized
      ? { type: 'result', requestId: m.requestId, durationMs: ms, maxMemoryUsedMb: 90, response, ms }
      : { ms, response: { statusCode: response.statusCode } },
  );
});
process.send?.({ type: 'ready' });
