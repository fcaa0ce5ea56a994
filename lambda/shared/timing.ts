/**
 * The timing block every response carries. The report reads these names: keep them.
 *   dbMs           database time of this invocation, ms, 3 decimals (performance.now)
 *   newConnection  true when the call created a socket on the agent
 *   coldStart      true for the first invocation of this execution environment
 *   initType       AWS_LAMBDA_INITIALIZATION_TYPE: on-demand | provisioned-concurrency | snap-start
 */
import { performance } from 'node:perf_hooks';

export interface Timing {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly coldStart: boolean;
  readonly initType: string;
}

let invocations = 0;

/** Call once at the start of each invocation; true only for the first in this environment. */
export function nextInvocationIsCold(): boolean {
  invocations += 1;
  return invocations === 1;
}

export function initType(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_LAMBDA_INITIALIZATION_TYPE ?? 'unknown';
}

export interface Measured<T> {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly outcome: { ok: true; value: T } | { ok: false; error: unknown };
}

/** Times one database operation and notes whether it opened a socket. Never throws. */
export async function measureDb<T>(socketsOpened: () => number, op: () => Promise<T>): Promise<Measured<T>> {
  const before = socketsOpened();
  const start = performance.now();
  let outcome: Measured<T>['outcome'];
  try {
    outcome = { ok: true, value: await op() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const dbMs = Math.round((performance.now() - start) * 1000) / 1000;
  return { dbMs, newConnection: socketsOpened() > before, outcome };
}
