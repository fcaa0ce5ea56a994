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
/** What the handler writes while it runs: written out after its time is taken, as the lab's worker does. */
/** @type {[(chunk: any, encoding?: any, cb?: any) => boolean, any[]][]} */
let held = [];
let holding = false;
const flush = () => {
  holding = false;
  const chunks = held;
  held = [];
  for (const [write, args] of chunks) write(...args);
};
if (mode === 'handler') {
  // Every host must carry the function's lines to its log; Lambda's runtime does it outside
  // Duration, and so does the lab's worker (runtime-worker.mjs). So does this floor: the write
  // is paid on both sides of the comparison, outside the handler's time on both.
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = /** @type {any} */ (
      (/** @type {any[]} */ ...args) => {
        if (!holding) return write(...args);
        held.push([write, args]);
        return true;
      }
    );
  }
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
  holding = true;
  const start = performance.now();
  /** @type {any} */
  let response;
  try {
    response = await work(m);
  } catch (e) {
    // Every call gets an answer; the caller refuses anything but 200, so a throw fails the bench.
    response = { statusCode: 500, body: String(e) };
  }
  const ms = performance.now() - start;
  flush();
  process.send?.(
    sized
      ? { type: 'result', requestId: m.requestId, durationMs: ms, maxMemoryUsedMb: 90, response, ms }
      : { ms, response: { statusCode: response.statusCode } },
  );
});
process.send?.({ type: 'ready' });
