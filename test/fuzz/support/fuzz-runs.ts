/**
 * What every fuzzing file shares: how many inputs a tier runs and from which seed, the per-input
 * deadline (a budget with 3x slack, never a wall-time assertion), and the tally each file prints
 * of what its engine answered.
 *
 * The library is fast-check (property-based testing): its arbitraries compose into grammars
 * (fc.letrec for recursive expression trees), a seed replays a run exactly, and a failure is
 * reported with the input and the seed that produced it.
 */
import fc from 'fast-check';

/** How many generated inputs a run sends, and from which seed. */
export interface FuzzRuns {
  readonly seed: number;
  readonly numRuns: number;
  /** Printed with the tally: `fast` or `slow`. */
  readonly tier: string;
}

/** The fast tier: a small fixed set, the same inputs every run. */
export const FAST: FuzzRuns = { seed: 20_261_128, numRuns: 40, tier: 'fast' };

/**
 * The slow tier: a longer set. Its seed is fixed too, so a failure replays; FUZZ_SEED picks
 * another (fast-check prints the seed of a failing run).
 */
export const SLOW: FuzzRuns = {
  seed: Number(process.env.FUZZ_SEED ?? 7_919),
  numRuns: Number(process.env.FUZZ_RUNS ?? 300),
  tier: 'slow',
};

/** A run of `runs.numRuns` inputs; stops at the first failure (an engine that hung stays hung, so shrinking would only time out). */
export function assertRuns<T>(runs: FuzzRuns, property: fc.IAsyncPropertyWithHooks<T>): Promise<void> {
  return fc.assert(property, { seed: runs.seed, numRuns: runs.numRuns, endOnFailure: true });
}

/** Rejects when `work` has not settled within `ms` (the budget times three). */
export async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a process is still there (signal 0 checks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Counts answers by kind ("400 ValidationException", "200", "closed") for the file's summary line. */
export class Tally {
  readonly #counts = new Map<string, number>();
  inputs = 0;
  constructor(readonly engine: string) {}
  add(kind: string): void {
    this.inputs += 1;
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
  }
  /** One line: `fuzz[dynamodb, fast]: 40 inputs {"200":12,...}`. */
  line(runs: FuzzRuns): string {
    const counts = Object.fromEntries([...this.#counts].sort((a, b) => b[1] - a[1]));
    return `fuzz[${this.engine}, ${runs.tier}]: ${this.inputs} inputs ${JSON.stringify(counts)}`;
  }
}
