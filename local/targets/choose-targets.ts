/**
 * Which targets a local run starts. Without --targets: every target whose engine is here, and
 * one line for each that is not (what is missing, the command that adds it); nothing fails.
 * With --targets: exactly those, and a usage error (exit 2, nothing started) when an engine
 * they name is missing.
 */
import { UsageError } from '../../core/errors';
import { TARGETS, type Target } from '../../core/lab-functions';
import {
  defaultFindContext,
  type EngineFound,
  type EngineMissing,
  type FindEngineContext,
  skippedLine,
} from '../engines/find-engine';
import type { LocalTarget } from './types';

export interface ChosenTargets {
  readonly targets: Target[];
  /** Where each chosen target's engine comes from. */
  readonly found: ReadonlyMap<Target, EngineFound>;
  /** Targets left out (default run only), each with what it lacks. */
  readonly skipped: readonly { readonly target: Target; readonly missing: EngineMissing }[];
}

export interface ChooseTargetsOptions extends Partial<FindEngineContext> {
  /** The targets --targets named; undefined: every target whose engine is here. */
  readonly requested?: readonly Target[];
  /** Every target's engine lookup. @default localTarget (the registry) */
  readonly registry?: (target: Target) => Pick<LocalTarget, 'findEngine'>;
  /** The targets a default run considers, in order. @default TARGETS */
  readonly all?: readonly Target[];
}

export async function chooseTargets(o: ChooseTargetsOptions = {}): Promise<ChosenTargets> {
  const ctx: FindEngineContext = { ...defaultFindContext(), ...o };
  const registry = o.registry ?? (await import('./index')).localTarget;
  const candidates = o.requested ?? o.all ?? TARGETS;
  // Lookups are independent (one may fetch PostgreSQL for seconds): all at once.
  const checks = await Promise.all(candidates.map((t) => registry(t).findEngine(ctx)));
  const found = new Map<Target, EngineFound>();
  const skipped: { target: Target; missing: EngineMissing }[] = [];
  candidates.forEach((target, i) => {
    const check = checks[i];
    if (check.found) found.set(target, check);
    else skipped.push({ target, missing: check });
  });
  if (o.requested !== undefined && skipped.length > 0) {
    throw new UsageError(
      `--targets ${o.requested.join(',')}: ${skipped.map((s) => skippedLine(s.target, s.missing).replace(': skipped,', ':')).join('; ')}`,
    );
  }
  return { targets: candidates.filter((t) => found.has(t)), found, skipped };
}

/** The lines a default run prints: one per skipped target. */
export function skippedLines(chosen: ChosenTargets): string[] {
  return chosen.skipped.map((s) => skippedLine(s.target, s.missing));
}
