/** How long a phase of `npm run load` is when --duration is not given. Imports nothing: --help prints it. */

/**
 * Without --duration, a run shares this much load among its phases: the first run (4 targets x
 * keep-alive on/off x create, get: 16 phases) then gets 3 s a phase and ends in a few minutes,
 * as each phase also pays Artillery's own start and stop beside the phase itself.
 */
export const DEFAULT_LOAD_S = 48;
/** A default phase is never shorter: at 10/s, 30 requests, enough for a p50. */
export const MIN_DEFAULT_PHASE_S = 3;
/** Nor longer: one target's run keeps its 20 s phases of old. */
export const MAX_DEFAULT_PHASE_S = 20;

/** Seconds per phase when --duration is not given: DEFAULT_LOAD_S shared by the phases, clamped. */
export function defaultPhaseS(phases: number): number {
  const share = Math.floor(DEFAULT_LOAD_S / Math.max(1, phases));
  return Math.min(MAX_DEFAULT_PHASE_S, Math.max(MIN_DEFAULT_PHASE_S, share));
}
