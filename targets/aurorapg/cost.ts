/**
 * Aurora Serverless v2's part of the cost model. Aurora bills capacity over time, not requests:
 * ACU-hours while the writer runs (per second), none while it is paused, and RDS Proxy by the
 * capacity it fronts, with a minimum (prices.json, with sources; the proxy's price is unverified
 * and null). A response carries no billed unit of its own: its timing block records only the
 * resumes the local lab reports (store.ts), which cost nothing by themselves. A phase's
 * capacity is phaseCapacity's, from the settings and the phase's wall time: the floor (the
 * minimum capacity, billed whether requests come or not) on its own line, the capacity above it
 * on another.
 */
import type { TargetCost } from '../../core/cost-registry';
import type { BilledQuantity } from '../../core/timing.mjs';
import prices from './prices.json' with { type: 'json' };
import { type AuroraSettings, parseAuroraSettings } from './settings';
import { RESUME_MS, RESUMES } from './store-keys';

export const ACU_HOURS = 'aurorapg.acuHours';
export const ACU_FLOOR_HOURS = 'aurorapg.acuFloorHours';
export const PROXY_ACU_HOURS = 'aurorapg.proxyAcuHours';

export interface PhaseCapacity {
  readonly settings: Pick<AuroraSettings, 'mode' | 'minAcu'>;
  /** The phase's wall time, s. */
  readonly wallS: number;
  /** Of which the writer was paused, s (only with a minimum of 0). @default 0 */
  readonly pausedS?: number;
  /** The capacity it ran at while serving, ACU (modeled: locally nothing scales). @default the lowest running capacity */
  readonly servingAcu?: number;
}

/**
 * A phase's capacity units: the floor (minAcu x running time) on its own line; with a minimum of
 * 0, the lowest running capacity for the time it ran (none while paused); the proxy's ACU-hours
 * at no less than its minimum.
 */
export function phaseCapacity(p: PhaseCapacity, rules: Readonly<Record<string, number>>): BilledQuantity[] {
  const pausedS = p.settings.minAcu === 0 ? Math.min(p.pausedS ?? 0, p.wallS) : 0;
  const runningH = (p.wallS - pausedS) / 3600;
  const serving = Math.max(p.servingAcu ?? rules.lowestRunningAcu, p.settings.minAcu);
  const out: BilledQuantity[] = [];
  if (p.settings.minAcu > 0)
    out.push({ key: ACU_FLOOR_HOURS, quantity: p.settings.minAcu * runningH, basis: 'computed' });
  const above = serving - p.settings.minAcu;
  if (above > 0 && runningH > 0) out.push({ key: ACU_HOURS, quantity: above * runningH, basis: 'modeled' });
  if (p.settings.mode === 'proxy')
    out.push({
      key: PROXY_ACU_HOURS,
      quantity: Math.max(serving, rules.proxyMinimumAcu) * (p.wallS / 3600),
      basis: 'modeled',
    });
  return out;
}

export const cost: TargetCost = {
  units: {
    [ACU_HOURS]: 'Aurora ACU-hours above the minimum (modeled)',
    [ACU_FLOOR_HOURS]: 'Aurora minimum-capacity ACU-hours (the idle floor)',
    [PROXY_ACU_HOURS]: 'RDS Proxy ACU-hours',
  },
  meteringRules: ['lowestRunningAcu', 'proxyMinimumAcu'],
  meter: {
    // A resume is recorded, never billed by itself: the capacity after it is.
    raw: [RESUMES, RESUME_MS],
    bill: () => [],
  },
  // A load phase keeps the writer running for its whole wall time: never paused during it.
  capacity: (phase, rules) =>
    phaseCapacity({ settings: parseAuroraSettings(phase.context), wallS: phase.wallS }, rules),
  prices,
  pricesFile: 'targets/aurorapg/prices.json',
};
