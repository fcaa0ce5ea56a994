/**
 * The lab's watchdog over its engines (`npm run local` turns it on): an engine whose process
 * died, or that runs but no longer answers its health request within a deadline (hung, or
 * stopped), is started again on the same port and data by the target's own restart. A hung one
 * is first killed (SIGKILL, its process group), so both take the same path. Every engine keeps
 * its data on files (the run data or --data), so a restarted engine has what it acknowledged.
 */

import type { Target } from '../core/lab-functions';
import { targetLabel } from '../core/lab-functions';
import { settlesWithin } from './engines/managed-child';
import type { LocalDatabase } from './targets';

export interface WatchdogOptions {
  /** The engines to watch, by target: read on every round, so a restarted engine's new PID is seen. */
  readonly databases: ReadonlyMap<Target, LocalDatabase>;
  /** Targets being restarted by someone else (RunningLab.restartEngine): left alone meanwhile. */
  readonly restarting: Set<Target>;
  readonly log: (line: string) => void;
  /** How often each engine gets a health request, ms. @default 2 000 */
  readonly healthIntervalMs?: number;
  /** How long an engine has to answer it, ms. @default 5 000 */
  readonly healthDeadlineMs?: number;
  /** Missed answers in a row that make an engine hung. @default 2 */
  readonly healthMisses?: number;
}

export interface Watchdog {
  stop(): void;
}

/** How often the watch looks for a dead process, ms. */
const ALIVE_CHECK_MS = 250;
export const DEFAULT_HEALTH_INTERVAL_MS = 2_000;
export const DEFAULT_HEALTH_DEADLINE_MS = 5_000;
export const DEFAULT_HEALTH_MISSES = 2;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILL to the engine's process group (each engine leads its own), else to the process. */
function kill(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already: the dead-engine path restarts it
    }
  }
}

interface Health {
  inFlight: boolean;
  lastAt: number;
  misses: number;
  /** The PID the misses were counted against. */
  pid: number;
  /** Why the last request failed. */
  why: string;
}

export function watchEngines(opts: WatchdogOptions): Watchdog {
  const interval = opts.healthIntervalMs ?? DEFAULT_HEALTH_INTERVAL_MS;
  const deadline = opts.healthDeadlineMs ?? DEFAULT_HEALTH_DEADLINE_MS;
  const allowed = opts.healthMisses ?? DEFAULT_HEALTH_MISSES;
  const { log, restarting } = opts;
  const health = new Map<Target, Health>();
  let stopped = false;

  const restart = (target: Target, database: LocalDatabase): void => {
    const label = targetLabel(target);
    restarting.add(target);
    void (async () => {
      try {
        await database.restart();
        log(`warning: ${label}'s engine restarted (pid ${database.pid}); its data was kept`);
      } catch (e) {
        log(`warning: ${label}'s engine did not start again: ${(e as Error).message}`);
      } finally {
        health.delete(target);
        restarting.delete(target);
      }
    })();
  };

  const check = (target: Target, database: LocalDatabase, h: Health): void => {
    const probe = database.health;
    if (!probe) return;
    h.inFlight = true;
    h.lastAt = Date.now();
    const pid = database.pid;
    const answered = probe.call(database, AbortSignal.timeout(deadline)).then(
      () => true,
      (e: Error) => {
        h.why = e.name === 'TimeoutError' ? 'no answer' : e.message;
        return false;
      },
    );
    // The probe should honour its signal; the watch does not rely on it.
    void settlesWithin(answered, deadline + 1_000)
      .then(async (settled) => {
        if (!settled) h.why = 'no answer, and the request did not end at its deadline';
        return settled && (await answered);
      })
      .then((ok) => {
        h.inFlight = false;
        if (stopped || restarting.has(target) || database.pid !== pid) return;
        h.misses = ok ? 0 : h.misses + 1;
        if (h.misses < allowed || !isAlive(pid)) return;
        log(
          `warning: ${targetLabel(target)}'s engine (pid ${pid}) did not answer its health request within ${deadline} ms, ${h.misses} times in a row (last: ${h.why}): killing it and starting it again on the same port`,
        );
        kill(pid);
        restart(target, database);
      });
  };

  const timer = setInterval(() => {
    for (const [target, database] of opts.databases) {
      if (restarting.has(target)) continue;
      const pid = database.pid;
      if (!isAlive(pid)) {
        log(`warning: ${targetLabel(target)}'s engine (pid ${pid}) died; starting it again on the same port`);
        restart(target, database);
        continue;
      }
      let h = health.get(target);
      if (!h || h.pid !== pid) {
        h = { inFlight: false, lastAt: Date.now(), misses: 0, pid, why: '' };
        health.set(target, h);
      }
      if (!h.inFlight && Date.now() - h.lastAt >= interval) check(target, database, h);
    }
  }, ALIVE_CHECK_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
