// @ts-check
/**
 * The environment side of the floor measurements in host-overhead.ts. On each IPC message it
 * waits `gapMs` (as a handler waits on its database) and answers with its own time, so the
 * caller can subtract it and keep only what the hops cost. No other work. With `sized`, the
 * answer is shaped and sized like the lab's result message (a GET's proxy result, ~0.5 KB).
 * With `handler`, it runs the function's own handler on the message's event instead of waiting
 * (the lab floor: its database call, its logging, its response) and answers with the handler's
 * response and time: what the least possible host would relay.
 *
 * argv: <gapMs> [sized] [handler <bundle file> <export name>]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [gapArg, sizedArg, mode, bundleFile, exportName] = process.argv.slice(2);
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

/** @type {(m: any) => Promise<any>} */
let work = sleep;
if (mode === 'handler') {
  const handler = (await import(pathToFileURL(bundleFile).href))[exportName];
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'relay-floor';
  // The function's timeout (10 s) from each call's start: the message's own deadline is a fixed one.
  work = (m) => {
    const deadlineMs = Date.now() + 10_000;
    return handler(m.event, {
      awsRequestId: m.requestId,
      functionName,
      functionVersion: '$LATEST',
      memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE ?? '128',
      getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
      callbackWaitsForEmptyEventLoop: true,
    });
  };
}

process.on('message', async (/** @type {any} */ m) => {
  const start = performance.now();
  const response = await work(m);
  const ms = performance.now() - start;
  process.send?.(
    sized
      ? { type: 'result', requestId: m.requestId, durationMs: ms, maxMemoryUsedMb: 90, response, ms }
      : { ms, response: { statusCode: response.statusCode } },
  );
});
process.send?.({ type: 'ready' });
