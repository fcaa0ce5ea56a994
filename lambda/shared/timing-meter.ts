/**
 * How a handler fills the timing block every response carries; the block's schema and
 * validator live in core/timing.mjs, which the load runner and the report read with.
 */
import { performance } from 'node:perf_hooks';
import { type BilledQuantity, billedBetween } from './bill-meter';
import type { PersonStore } from './person-store';

export type { Timing } from '../../core/timing.mjs';

let invocations = 0;

/** Call once at the start of each invocation; true only for the first in this environment. */
export function nextInvocationIsCold(): boolean {
  invocations += 1;
  return invocations === 1;
}

let inFlight = 0;

/**
 * Call once at the start of each invocation, before any await: how many invocations are in flight
 * in this runtime (this one included), and what to call when it ends. 1 on standard Lambda, where an
 * environment serves one invocation at a time; up to PerExecutionEnvironmentMaxConcurrency on
 * Managed Instances. Node's Managed Instances runtime spreads an environment's invocations over
 * worker threads, each with its own module state: this counts the worker's share.
 */
export function enterInvocation(): { readonly concurrency: number; leave(): void } {
  inFlight += 1;
  let left = false;
  return {
    concurrency: inFlight,
    leave() {
      if (left) return;
      left = true;
      inFlight -= 1;
    },
  };
}

export function initType(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_LAMBDA_INITIALIZATION_TYPE ?? 'unknown';
}

/**
 * This execution environment's id: its log stream's name, which Lambda gives each environment
 * (the local host sets one per environment as Lambda does). 'unknown' outside Lambda.
 */
export function environmentId(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWS_LAMBDA_LOG_STREAM_NAME ?? 'unknown';
}

export interface Measured<T> {
  readonly dbMs: number;
  readonly newConnection: boolean;
  readonly dbRequests: number;
  readonly dbRoundTrips: number;
  /** Commands the call sent by name; empty when the store counts none (commandsSent). */
  readonly dbCommands: Readonly<Record<string, number>>;
  /** Units the call was billed; empty when the store records none. */
  readonly billed: readonly BilledQuantity[];
  readonly outcome: { ok: true; value: T } | { ok: false; error: unknown };
}

/** Times one database operation, counting the connections it opened and the requests it sent. Never throws. */
export async function measureDb<T>(
  store: Pick<
    PersonStore,
    'socketsOpened' | 'requestsSent' | 'roundTripsMade' | 'commandsSent' | 'billed' | 'settle'
  >,
  op: () => Promise<T>,
): Promise<Measured<T>> {
  // Before the baselines: what an abandoned call still sends belongs to that call, not this one.
  await store.settle?.();
  const before = store.socketsOpened();
  const requestsBefore = store.requestsSent();
  const roundTrips = () => store.roundTripsMade?.() ?? store.requestsSent();
  const roundTripsBefore = roundTrips();
  const commandsBefore = store.commandsSent?.();
  const billedBefore = store.billed?.();
  const start = performance.now();
  let outcome: Measured<T>['outcome'];
  try {
    outcome = { ok: true, value: await op() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const dbMs = Math.round((performance.now() - start) * 1000) / 1000;
  return {
    dbMs,
    newConnection: store.socketsOpened() > before,
    dbRequests: store.requestsSent() - requestsBefore,
    dbRoundTrips: roundTrips() - roundTripsBefore,
    dbCommands:
      commandsBefore === undefined || store.commandsSent === undefined
        ? {}
        : commandsBetween(commandsBefore, store.commandsSent()),
    billed:
      billedBefore === undefined || store.billed === undefined
        ? []
        : billedBetween(billedBefore, store.billed()),
    outcome,
  };
}

/** The commands sent between two cumulative counts, by name; names with none left out. */
export function commandsBetween(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, n] of Object.entries(after)) {
    const d = n - (before[name] ?? 0);
    if (d > 0) out[name] = d;
  }
  return out;
}
