/**
 * Preloaded into the artillery child (NODE_OPTIONS=--require) by artillery-runner.ts.
 * CommonJS because `--require` runs before any ESM loader and artillery itself is CJS;
 * it also runs in artillery's worker threads (Node preloads there too).
 *
 * 1. Telemetry. artillery 2.0.21 lib/telemetry.js always builds a posthog-node 2.6.0 client;
 *    ARTILLERY_DISABLE_TELEMETRY only strips the event's properties, the 'test run' event is
 *    still captured, and the shutdown awaits client.shutdownAsync(), which posts to
 *    https://app.posthog.com/batch/ with 3 retries 3 s apart and a 10 s timeout per try.
 *    On a closed network that is ~12 s after every run (up to ~50 s where packets are
 *    dropped rather than refused). Only that require is stubbed: nothing is ever sent.
 * 2. End-of-run polls. Two timers decide when a finished run is noticed: the worker checks
 *    "are all VUs done?" every 1 s (int-core runner, `function checkIfDone`) and the main
 *    thread checks "have all workers reported?" every 2 s (launch-platform workerExitWatcher).
 *    Together ~2.5 s of idle wall time per run. The first is polled every 100 ms instead; the
 *    second is answered as soon as the last worker's 'done' message arrives. Same code paths,
 *    same report, only sooner. Each shim checks the shape it expects and does nothing otherwise.
 * 3. Start-up. oclif has no command manifest here, so every run loads every command module;
 *    run-fargate/run-lambda load the cloud bundler's `dependency-tree`, which loads the
 *    TypeScript compiler (~0.5 s). It is only called when a cloud run bundles files, so its
 *    require is deferred until first use.
 * 4. The cloud bundler's TypeScript. That bundler (dependency-tree -> precinct ->
 *    detective-typescript) parses with @typescript-eslint/typescript-estree, whose
 *    require('typescript') finds this project's TypeScript 7, a native compiler without the
 *    JavaScript API it reads: run-lambda and run-fargate threw at their first bundle. Those
 *    requires get detective-typescript's own TypeScript (5.x) instead; nothing else changes.
 */
'use strict';

const Module = require('node:module');
const path = require('node:path');

const TELEMETRY_MODULE = path.join('artillery', 'lib', 'telemetry.js');
const BOM_MODULE = path.join('artillery', 'lib', 'platform', 'aws-ecs', 'legacy', 'bom.js');
const RUN_COMMAND = path.join('artillery', 'lib', 'cmds', 'run.js');
const DONE_POLL_MS = 100;
/** The cloud bundler's parsers that require('typescript') for its JavaScript API. */
const ESTREE_USERS = [
  path.join('node_modules', '@typescript-eslint', 'typescript-estree') + path.sep,
  path.join('node_modules', 'tsutils') + path.sep,
];

/** detective-typescript's own TypeScript, found from the module that asks. */
function bundlerTypeScript(from) {
  const detective = require.resolve('detective-typescript', { paths: [path.dirname(from)] });
  return require.resolve('typescript', { paths: [path.dirname(detective)] });
}

/** Stands in for posthog-node's PostHog: accepts events, sends nothing, shuts down at once. */
class PostHogStub {
  capture() {}
  shutdown() {}
  async shutdownAsync() {}
}

/** Wraps createLauncher so the launcher finishes as soon as the last worker says 'done'. */
function promptLauncher(createLauncher) {
  return async function createPromptLauncher(...args) {
    const launcher = await createLauncher(...args);
    if (
      !launcher ||
      typeof launcher.initWorkerEvents !== 'function' ||
      typeof launcher.handleAllWorkersFinished !== 'function'
    ) {
      return launcher;
    }
    const initWorkerEvents = launcher.initWorkerEvents.bind(launcher);
    launcher.initWorkerEvents = async (workerEvents) => {
      await initWorkerEvents(workerEvents);
      // Registered after artillery's own 'done' listener, so the count is already updated.
      workerEvents.on('done', () => {
        if (launcher.exitedWorkersCount !== launcher.platform.getDesiredWorkerCount()) return;
        // Stop the 2 s poll first so the final report is emitted exactly once.
        clearInterval(launcher.workerExitWatcher);
        launcher.handleAllWorkersFinished();
      });
    };
    return launcher;
  };
}

/** A function module loaded on first call or property read, not at require time. */
function deferred(load) {
  let real;
  const get = () => {
    real ??= load();
    return real;
  };
  return new Proxy(function deferredModule() {}, {
    apply: (_target, thisArg, args) => Reflect.apply(get(), thisArg, args),
    get: (_target, prop) => Reflect.get(get(), prop),
  });
}

const originalLoad = Module._load;
Module._load = function labLoad(request, parent, isMain) {
  const from = parent?.filename ?? '';
  if (request === 'posthog-node' && from.endsWith(TELEMETRY_MODULE)) {
    return { PostHog: PostHogStub };
  }
  if (request === 'typescript' && ESTREE_USERS.some((dir) => from.includes(dir))) {
    return originalLoad.call(this, bundlerTypeScript(from), parent, isMain);
  }
  if (request === 'dependency-tree' && from.endsWith(BOM_MODULE)) {
    return deferred(() => originalLoad.call(this, request, parent, isMain));
  }
  const loaded = originalLoad.call(this, request, parent, isMain);
  if (request === '../launch-platform' && from.endsWith(RUN_COMMAND) && typeof loaded === 'function') {
    return promptLauncher(loaded);
  }
  return loaded;
};

const originalSetInterval = globalThis.setInterval;
globalThis.setInterval = function labSetInterval(callback, ms, ...args) {
  const poll = typeof callback === 'function' && callback.name === 'checkIfDone' ? DONE_POLL_MS : ms;
  return originalSetInterval(callback, poll, ...args);
};
