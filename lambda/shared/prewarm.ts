/**
 * The `prewarmConnection` flag: the stack sets PREWARM_CONNECTION=on and the function's init
 * (a top-level await in each handler file) opens its database connection with one cheap real
 * call, as the provisioned-concurrency article did, so that the first invocation finds it open.
 * Whether it still is when that invocation comes is what the lab measures (a server closes
 * connections idle about a minute).
 *
 * Redis has no prewarm: its URL comes from the Parameters and Secrets extension, which AWS
 * documents as not callable during INIT, so its functions never get the variable.
 */
import type { PersonStore } from './person-store';

export const PREWARM_ENV = 'PREWARM_CONNECTION';
/** Every prewarm log line starts so. */
export const PREWARM_LOG_PREFIX = 'prewarm:';
/** The successful prewarm's line: its call's time, ms, in group 1. */
export const PREWARM_TIME_PATTERN = /prewarm: .+ connection opened at init in ([\d.]+) ms/;
/** Bounds the init's call: a slow database costs init time, never the function. */
export const PREWARM_TIMEOUT_MS = 2_000;

export function prewarmRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[PREWARM_ENV] === 'on';
}

/**
 * Runs the store's prewarm when the flag asks for it and returns the store. One log line with
 * the call's time (as the provisioned-concurrency article logged its call at init; the
 * experiments read it, experiments/step-results.ts). A failed prewarm never fails the init: one
 * log line, and the first invocation connects as it would have.
 */
export async function prewarmed<S extends PersonStore>(
  store: S,
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = console.log,
): Promise<S> {
  if (!prewarmRequested(env) || store.prewarm === undefined) return store;
  try {
    const t0 = performance.now();
    await store.prewarm(AbortSignal.timeout(PREWARM_TIMEOUT_MS));
    log(
      `${PREWARM_LOG_PREFIX} ${store.name} connection opened at init in ${(performance.now() - t0).toFixed(3)} ms`,
    );
  } catch (error) {
    log(`${PREWARM_LOG_PREFIX} ${store.name} connection not opened at init, carrying on: ${describe(error)}`);
  }
  return store;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
