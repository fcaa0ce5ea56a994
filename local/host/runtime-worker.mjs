// @ts-check
/**
 * One Lambda execution environment: a child process that loads a function bundle once
 * (the init phase) and then runs one invocation at a time on request from the host (several, on
 * Managed Instances). Also one runtime worker thread of a Managed Instances environment with
 * several (runtime-dispatcher.mjs), which then relays its messages.
 * Plain JavaScript on plain `node` on purpose: a TypeScript loader would add its own
 * start-up to every measured init, and the host runs it on Lambda's Node (24), not on the
 * Node that runs the tools, so it must need nothing the project installs.
 *
 * argv: <bundle file> <export name> <function name> <memory MB> [<max concurrency>]. With a max
 * concurrency above 1 (Lambda Managed Instances) the host sends the next invoke before the last
 * has answered, and the worker runs them at once on its one thread, each console line naming its
 * own request (AsyncLocalStorage). IPC messages, host -> worker:
 *   { type: 'invoke', requestId, event, deadlineMs }
 * (what is the same for every invocation of the environment comes once, in argv and the
 * environment, not in each message the worker has to parse)
 * worker -> host:
 *   { type: 'ready', initMs, runtimeStartMs } | { type: 'init-error', initMs, error }
 *   { type: 'result', requestId, durationMs, maxMemoryUsedMb, response, output }
 *   { type: 'error', requestId, durationMs, maxMemoryUsedMb, error, output }
 * where output is { stdout, stderr }: the bytes each stream has carried since the start, which
 * the host reads before it logs END and REPORT (the result travels on another pipe).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { parse } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { parentPort } from 'node:worker_threads';

const [bundleFile, exportName, functionName, memoryLimitInMB, maxConcurrencyArg] = process.argv.slice(2);
// Standard Lambda keeps the plain variable: one invocation at a time needs no async context.
/** @type {AsyncLocalStorage<string> | undefined} */
const requestIds = Number(maxConcurrencyArg ?? 1) > 1 ? new AsyncLocalStorage() : undefined;
/**
 * To the host over IPC, or, as one of a Managed Instances environment's worker threads, to the
 * dispatcher that started it (runtime-dispatcher.mjs).
 * @param {unknown} m
 */
const send = (m) => (parentPort ? parentPort.postMessage(m) : process.send?.(m));
// Read once: each process.env read is a getenv behind an interceptor (profiled at 4% of the
// worker's time per invocation when it was read there), and Lambda fixes it per environment.
const functionVersion = process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST';
let currentRequestId = 'undefined';

// The Node.js runtime prefixes every console line with time, request id and level.
/** @param {string} level @param {(s: string) => void} write */
const logger =
  (level, write) =>
  (/** @type {unknown[]} */ ...args) =>
    write(
      `${new Date().toISOString()}\t${requestIds?.getStore() ?? currentRequestId}\t${level}\t${format(...args).replace(/\n/g, '\r')}\n`,
    );
/**
 * What a function writes while it runs is held here and written out once its Duration is
 * measured, just before its result is sent (so the host still reads every line before the
 * result, and logs END and REPORT after them), or at the event loop's next turn (an await), or
 * once it passes HOLD_BYTES. A pipe write wakes the host to read it, and on a small machine that
 * wake-up lands inside the function's Duration, for work that is the host's (Lambda's runtime
 * hands a line to its log agent without waiting on it). The cost of
 * holding: a line written in the same synchronous stretch in which the process is killed (a
 * timeout, the memory ceiling) is lost. Between invocations (init, background work) every write
 * goes straight out.
 */
const HOLD_BYTES = 64 * 1024;
/** Bytes each stream has been given since the start. */
const output = { stdout: 0, stderr: 0 };
/** @typedef {(chunk: string | Uint8Array, encoding?: BufferEncoding, cb?: (e?: Error | null) => void) => boolean} Write */
/** @type {[Write, string | Uint8Array, BufferEncoding | undefined, ((e?: Error | null) => void) | undefined][]} */
let held = [];
let heldBytes = 0;
let holding = false;
/** Invocations under way: output is held while any is. */
let inFlight = 0;
let flushQueued = false;

function flushOutput() {
  flushQueued = false;
  const chunks = held;
  held = [];
  heldBytes = 0;
  for (const [write, chunk, encoding, cb] of chunks) write(chunk, encoding, cb);
}

/** @param {NodeJS.WriteStream} stream @param {'stdout' | 'stderr'} name */
function holdWrites(stream, name) {
  /** @type {Write} */
  const write = stream.write.bind(stream);
  // Assigned on the stream itself: a Console made from process.stdout (Powertools makes one) calls it too.
  stream.write = /** @type {any} */ (
    (/** @type {string | Uint8Array} */ chunk, /** @type {any} */ encoding, /** @type {any} */ cb) => {
      if (typeof encoding === 'function') {
        cb = encoding;
        encoding = undefined;
      }
      const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk, encoding) : chunk.byteLength;
      output[name] += bytes;
      if (!holding || /** @type {any} */ (process)._exiting) {
        flushOutput();
        return write(chunk, encoding, cb);
      }
      // A copy of bytes: a caller may reuse its buffer once write returns, as a direct write allows.
      held.push([write, typeof chunk === 'string' ? chunk : Buffer.from(chunk), encoding, cb]);
      heldBytes += bytes;
      if (heldBytes >= HOLD_BYTES) flushOutput();
      else if (!flushQueued) {
        flushQueued = true;
        setImmediate(flushOutput);
      }
      return true;
    }
  );
}
holdWrites(process.stdout, 'stdout');
holdWrites(process.stderr, 'stderr');
// An uncaught exception's report and the exit come after what the function wrote before them.
process.on('uncaughtExceptionMonitor', flushOutput);
process.on('exit', flushOutput);

/** Duration is measured: what the invocation wrote goes out, ahead of its result. */
function endInvocation() {
  inFlight -= 1;
  holding = inFlight > 0;
  flushOutput();
}

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

/** One of the Node runtime's own init errors, named and worded as it words them. */
class RuntimeError extends Error {
  /** @param {string} name @param {string} message @param {unknown} [cause] */
  constructor(name, message, cause) {
    super(message);
    this.name = name;
    // The runtime's stack is its own first line, then the original error's frames.
    const frames = cause instanceof Error ? (cause.stack ?? '').split('\n').slice(1) : [];
    this.stack = [`${name}: ${message}`, ...frames].join('\n');
  }
}

/**
 * As the Node runtime classifies an init failure: a syntax error and a missing module get
 * its `Runtime.*` names (CommonJS says MODULE_NOT_FOUND, the ESM loader ERR_MODULE_NOT_FOUND);
 * anything else the bundle threw keeps its own name, which Lambda reports as Runtime.Unknown.
 * @param {unknown} e
 */
function classifyInitError(e) {
  if (e instanceof SyntaxError)
    return new RuntimeError('Runtime.UserCodeSyntaxError', `${e.name}: ${e.message}`, e);
  const code = /** @type {{ code?: unknown }} */ (e)?.code;
  if (e instanceof Error && (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND'))
    return new RuntimeError('Runtime.ImportModuleError', `${e.name}: ${e.message}`, e);
  return e;
}

/** Where a streaming handler says so (awslambda.streamifyResponse); the runtime exempts it. */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
/** nodejs24.x's words for a callback handler, as its runtime interface client writes them. */
const CALLBACK_REMOVED =
  'ERROR: AWS Lambda has removed support for callback-based function handlers starting with Node.js 24. You need to modify this function to use a supported handler signature to use Node.js 24 or later. For more information see https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html.';

/** @type {((event: unknown, context: unknown) => Promise<unknown>) & { [STREAMING]?: unknown }} */
let handler;
// The runtime's own start, before any of the function's code: what an empty handler's init is
// here (the host's cold-start model, cold-start-model.ts, waits Lambda's published remainder).
const runtimeStartMs = performance.now();
try {
  let mod;
  try {
    mod = await import(pathToFileURL(bundleFile).href);
  } catch (e) {
    throw classifyInitError(e);
  }
  handler = mod[exportName];
  const handlerString = `${parse(bundleFile).name}.${exportName}`;
  if (handler === undefined || handler === null)
    throw new RuntimeError('Runtime.HandlerNotFound', `${handlerString} is undefined or not exported`);
  if (typeof handler !== 'function')
    throw new RuntimeError('Runtime.HandlerNotFound', `${handlerString} is not a function`);
  // nodejs24.x removed callback handlers: its runtime (aws-lambda-ric 4.x, errorOnDeprecatedCallback)
  // refuses at init any handler declaring three or more parameters, async or not, unless it streams.
  if (handler.length >= 3 && handler[STREAMING] !== 'response')
    throw new RuntimeError('Runtime.CallbackHandlerDeprecated', CALLBACK_REMOVED);
  // performance.now() counts from process start: runtime start-up plus the bundle's static init.
  send({ type: 'ready', initMs: performance.now(), runtimeStartMs });
} catch (e) {
  const error = describe(e);
  // The runtime's own line for it, before the platform's INIT_REPORT (nodejs24.x calls it Init Error).
  err(`${new Date().toISOString()}\tundefined\tERROR\tInit Error \t${JSON.stringify(error)}\n`);
  send({ type: 'init-error', initMs: performance.now(), error });
  process.exitCode = 1;
  process.disconnect?.();
}

(parentPort ?? process).on('message', (/** @type {any} */ msg) => {
  if (msg?.type !== 'invoke') return;
  if (requestIds) requestIds.run(msg.requestId, invoke, msg);
  else invoke(msg);
});

/** @param {any} msg */
async function invoke(msg) {
  currentRequestId = msg.requestId;
  inFlight += 1;
  holding = true;
  const context = {
    awsRequestId: msg.requestId,
    functionName,
    functionVersion,
    memoryLimitInMB,
    getRemainingTimeInMillis: () => Math.max(0, msg.deadlineMs - Date.now()),
    // No callbackWaitsForEmptyEventLoop, succeed, fail or done: nodejs24.x removed them with
    // callback handlers, and it answers with the awaited value without waiting for the event loop.
  };
  const start = performance.now();
  try {
    const response = await handler(msg.event, context);
    const durationMs = performance.now() - start;
    endInvocation();
    send({
      type: 'result',
      requestId: msg.requestId,
      durationMs,
      maxMemoryUsedMb: maxMemoryUsedMb(),
      response,
      output,
    });
  } catch (e) {
    const durationMs = performance.now() - start;
    const error = describe(e);
    console.error('Invoke Error', JSON.stringify(error));
    endInvocation();
    send({
      type: 'error',
      requestId: msg.requestId,
      durationMs,
      maxMemoryUsedMb: maxMemoryUsedMb(),
      error,
      output,
    });
  }
}
