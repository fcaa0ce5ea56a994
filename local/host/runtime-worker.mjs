// @ts-check
/**
 * One Lambda execution environment: a child process that loads a function bundle once
 * (the init phase) and then runs one invocation at a time on request from the host.
 * Plain JavaScript on plain `node` on purpose: a TypeScript loader would add its own
 * start-up to every measured init.
 *
 * argv: <bundle file> <export name>. IPC messages, host -> worker:
 *   { type: 'invoke', requestId, event, functionName, memoryLimitInMB, deadlineMs }
 * worker -> host:
 *   { type: 'ready', initMs } | { type: 'init-error', error }
 *   { type: 'result', requestId, durationMs, maxMemoryUsedMb, response }
 *   { type: 'error', requestId, durationMs, maxMemoryUsedMb, error }
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

const [bundleFile, exportName] = process.argv.slice(2);
let currentRequestId = 'undefined';

// The Node.js runtime prefixes every console line with time, request id and level.
/** @param {string} level @param {(s: string) => void} write */
const logger =
  (level, write) =>
  (/** @type {unknown[]} */ ...args) =>
    write(
      `${new Date().toISOString()}\t${currentRequestId}\t${level}\t${format(...args).replace(/\n/g, '\r')}\n`,
    );
const out = (/** @type {string} */ s) => process.stdout.write(s);
const err = (/** @type {string} */ s) => process.stderr.write(s);
console.log = logger('INFO', out);
console.info = logger('INFO', out);
console.debug = logger('DEBUG', out);
console.warn = logger('WARN', err);
console.error = logger('ERROR', err);

/** @param {unknown} e */
function describe(e) {
  const error = e instanceof Error ? e : new Error(String(e));
  return { errorType: error.name, errorMessage: error.message, stack: (error.stack ?? '').split('\n') };
}

const maxMemoryUsedMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** @type {(event: unknown, context: unknown) => Promise<unknown>} */
let handler;
try {
  const mod = await import(pathToFileURL(bundleFile).href);
  handler = mod[exportName];
  if (typeof handler !== 'function')
    throw new Error(`${bundleFile} does not export a function named ${exportName}`);
  // performance.now() counts from process start: runtime start-up plus the bundle's static init.
  process.send?.({ type: 'ready', initMs: performance.now() });
} catch (e) {
  process.send?.({ type: 'init-error', error: describe(e) });
  process.exitCode = 1;
  process.disconnect?.();
}

process.on('message', async (/** @type {any} */ msg) => {
  if (msg?.type !== 'invoke') return;
  currentRequestId = msg.requestId;
  const context = {
    awsRequestId: msg.requestId,
    functionName: msg.functionName,
    functionVersion: '$LATEST',
    memoryLimitInMB: String(msg.memoryLimitInMB),
    getRemainingTimeInMillis: () => Math.max(0, msg.deadlineMs - Date.now()),
    callbackWaitsForEmptyEventLoop: true,
  };
  const start = performance.now();
  try {
    const response = await handler(msg.event, context);
    const durationMs = performance.now() - start;
    process.send?.({
      type: 'result',
      requestId: msg.requestId,
      durationMs,
      maxMemoryUsedMb: maxMemoryUsedMb(),
      response,
    });
  } catch (e) {
    const durationMs = performance.now() - start;
    const error = describe(e);
    console.error('Invoke Error', JSON.stringify(error));
    process.send?.({
      type: 'error',
      requestId: msg.requestId,
      durationMs,
      maxMemoryUsedMb: maxMemoryUsedMb(),
      error,
    });
  }
});
