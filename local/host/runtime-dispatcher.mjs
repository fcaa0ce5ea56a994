// @ts-check
/**
 * A Lambda Managed Instances environment with several runtime workers: Node's runtime there "uses
 * worker threads with async/await-based execution", one per vCPU by default, or
 * AWS_LAMBDA_NODEJS_WORKER_COUNT; "Function initialization occurs once per worker thread"
 * (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-nodejs-runtime.html).
 * Lambda's environment is ready once one worker is; here once every worker has initialized (or
 * failed to), so that each invocation can go to any of them: Managed Instances start environments
 * ahead of traffic, where the difference is not seen. A worker that dies leaves the others serving
 * (https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html).
 *
 * This process takes the host's IPC messages as runtime-worker.mjs does, hands each invocation to
 * the ready worker with the fewest under way, and passes their answers back. argv: the worker's
 * five, then the worker count. A worker's console lines reach the host through this process's
 * stdout, after its answer at times: END and REPORT may precede a line of theirs.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

const args = process.argv.slice(2, 7);
const count = Math.max(1, Number(process.env.AWS_LAMBDA_NODEJS_WORKER_COUNT || process.argv[7] || 1));
const runtimeStartMs = performance.now();

/** Bytes this process has written to each stream: the workers' lines pass through here. */
const output = { stdout: 0, stderr: 0 };
for (const name of /** @type {const} */ (['stdout', 'stderr'])) {
  const stream = process[name];
  const write = stream.write.bind(stream);
  stream.write = /** @type {any} */ (
    (/** @type {string | Uint8Array} */ chunk, /** @type {any} */ encoding, /** @type {any} */ cb) => {
      output[name] += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      return write(chunk, encoding, cb);
    }
  );
}

/** @typedef {{ worker: Worker, ready: boolean, gone: boolean, inFlight: Set<string> }} Runtime */
/** @type {Runtime[]} */
const runtimes = [];
let initErrors = 0;
let initialized = 0;
/** Every worker has initialized or failed: ready if one of them is. */
function initDone() {
  if (initialized + initErrors < count) return;
  if (initialized > 0) process.send?.({ type: 'ready', initMs: performance.now(), runtimeStartMs });
  else {
    process.send?.({ type: 'init-error', initMs: performance.now(), error: firstError });
    process.exitCode = 1;
    process.disconnect?.();
  }
}
/** @type {unknown} */
let firstError;

for (let i = 0; i < count; i++) {
  const worker = new Worker(new URL('./runtime-worker.mjs', import.meta.url), { argv: args });
  /** @type {Runtime} */
  const r = { worker, ready: false, gone: false, inFlight: new Set() };
  runtimes.push(r);
  worker.on('message', (/** @type {any} */ m) => {
    if (m.type === 'ready') {
      r.ready = true;
      initialized += 1;
      initDone();
    } else if (m.type === 'init-error') {
      firstError ??= m.error;
      initErrors += 1;
      initDone();
    } else if (m.type === 'result' || m.type === 'error') {
      r.inFlight.delete(m.requestId);
      process.send?.({ ...m, output: { ...output } });
    }
  });
  worker.on('error', () => {});
  worker.on('exit', () => {
    r.gone = true;
    // Its invocations fail; the environment goes on while a worker lives.
    for (const requestId of r.inFlight)
      process.send?.({
        type: 'error',
        requestId,
        durationMs: 0,
        maxMemoryUsedMb: Math.round(process.resourceUsage().maxRSS / 1024),
        error: { errorType: 'Runtime.ExitError', errorMessage: 'Runtime worker exited', stack: [] },
        output: { ...output },
      });
    r.inFlight.clear();
    if (runtimes.every((x) => x.gone)) process.exit(1);
  });
}

process.on('message', (/** @type {any} */ msg) => {
  if (msg?.type !== 'invoke') return;
  let best;
  for (const r of runtimes)
    if (r.ready && !r.gone && (!best || r.inFlight.size < best.inFlight.size)) best = r;
  if (!best) return; // no worker left: the exit that follows fails the invocation
  best.inFlight.add(msg.requestId);
  best.worker.postMessage(msg);
});
