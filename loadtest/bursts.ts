/**
 * A sparse site's traffic as Artillery phases: arrivals for activeS, then a pause with none,
 * until the run's arrival seconds are used (artillery-runner.ts builds the phases). Light: the
 * load phases and the experiments' estimates read it without loading the runner.
 */
import type { Operation } from '../core/lab-functions';

/** Traffic with idle stretches: activeS of arrivals, then pauseS of none, until durationS of arrivals. */
export interface Bursts {
  readonly activeS: number;
  readonly pauseS: number;
  /** The phases that run in bursts (load-phases.ts); the others run steady. @default every phase */
  readonly operations?: readonly Operation[];
}

/** The pauses a run with bursts waits through: one between each two bursts. */
export function burstPauseS(durationS: number, bursts: Bursts | undefined): number {
  if (bursts === undefined) return 0;
  return (Math.ceil(durationS / bursts.activeS) - 1) * bursts.pauseS;
}
