/**
 * What a run started and must stop, in one place: the local lab (its engines, network models,
 * environments and server), a load run (its host-load sampler, the lab, the log file) and an
 * experiment (its sampler). Stops run last-added first, exactly once however many callers ask
 * (a signal and the run unwinding may both), and one that fails does not keep the others from
 * running: the run's own outcome is what its caller reports.
 *
 * Light on purpose (nothing imported): every CLI that starts a run loads it.
 */
export type Stop = () => unknown;

export class Cleanup {
  readonly #stops: Stop[] = [];
  #running: Promise<void> | undefined;

  /** True once run() was called: what is started now must be stopped at once. */
  get stopping(): boolean {
    return this.#running !== undefined;
  }

  /** Owns `stop`, to run before every stop added earlier. */
  add(stop: Stop): void {
    this.#stops.push(stop);
  }

  /**
   * Owns `stop` and returns true; when the run is already being stopped, runs `stop` at once
   * instead and returns false, so the caller gives up what it was starting.
   */
  async own(stop: Stop): Promise<boolean> {
    if (!this.stopping) {
      this.add(stop);
      return true;
    }
    await settle(stop);
    return false;
  }

  /** Runs every stop, last added first (a stop added meanwhile too). Idempotent. */
  run(): Promise<void> {
    this.#running ??= (async () => {
      while (this.#stops.length > 0) await settle(this.#stops.pop() as Stop);
    })();
    return this.#running;
  }
}

/** Calls `stop` and waits for it, its error dropped. */
async function settle(stop: Stop): Promise<void> {
  try {
    await stop();
  } catch {
    // Stopping what already failed (an engine that died) fails too; the rest still stops.
  }
}

/** Runs `body` with a Cleanup that is run when `body` settles, whichever way. */
export async function withCleanup<T>(body: (cleanup: Cleanup) => Promise<T>): Promise<T> {
  const cleanup = new Cleanup();
  try {
    return await body(cleanup);
  } finally {
    await cleanup.run();
  }
}
