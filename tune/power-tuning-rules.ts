/**
 * AWS Lambda Power Tuning 4.4.0's rules, written for the local tuner from its documented
 * behaviour (lambda/executor.js, lambda/utils.js, lambda/analyzer.js): what an invocation's
 * duration is, how a power value's average is trimmed, what it costs, and how a strategy
 * picks. Pure functions: the local runner and the tests call them.
 */
import { type Architecture, DEFAULT_PRICES, type LambdaPrices, lambdaCostUsd } from '../core/cost';
import type { PowerTuningOutput, PowerTuningStat } from './power-tuning-result';
import type { Strategy } from './tune-args';

/** Power Tuning's default share of invocations dropped at each end before averaging. */
export const DEFAULT_DISCARD_TOP_BOTTOM = 0.2;
/** Power Tuning's default weight of cost against speed in the balanced strategy. */
export const DEFAULT_BALANCED_WEIGHT = 0.5;
/** Power Tuning's default visualization page; the hash carries the curve, nothing is sent. */
export const VISUALIZATION_URL = 'https://lambda-power-tuning.show/';

/** The durations of one REPORT line, ms (0 for a field the line lacks). */
export interface ReportDurations {
  readonly durationMs: number;
  readonly initDurationMs: number;
  readonly restoreDurationMs: number;
  readonly billedDurationMs: number;
  readonly billedRestoreDurationMs: number;
}

const field = (line: string, name: string): number => {
  // Tab-anchored, so `Duration` never matches inside `Billed Duration` or `Init Duration`.
  const m = new RegExp(`\\t${name}: ([0-9.]+) ms`).exec(line);
  return m ? Number(m[1]) : 0;
};

/** Reads a REPORT line as Lambda writes it (tab-separated fields); undefined for anything else. */
export function reportDurations(line: string): ReportDurations | undefined {
  if (!line.startsWith('REPORT RequestId:')) return undefined;
  const durationMs = field(line, 'Duration');
  if (!(durationMs > 0)) return undefined;
  return {
    durationMs,
    initDurationMs: field(line, 'Init Duration'),
    restoreDurationMs: field(line, 'Restore Duration'),
    billedDurationMs: field(line, 'Billed Duration'),
    billedRestoreDurationMs: field(line, 'Billed Restore Duration'),
  };
}

/** What Power Tuning averages for speed: Duration plus Init (or Restore) Duration. */
export const totalDuration = (d: ReportDurations): number =>
  d.durationMs + d.initDurationMs + d.restoreDurationMs;

/** What it averages for cost: Billed Duration plus Billed Restore Duration. */
export const totalBilled = (d: ReportDurations): number => d.billedDurationMs + d.billedRestoreDurationMs;

/** Clamps discardTopBottom to Power Tuning's 0..0.4. */
export function discardShare(discardTopBottom: number = DEFAULT_DISCARD_TOP_BOTTOM): number {
  return Math.min(Math.max(discardTopBottom, 0), 0.4);
}

/**
 * Trimmed mean: sort, drop floor(n x share) values at each end, average the rest. With too
 * few values to drop any (n x share < 1), it is the plain mean; no values average to 0.
 */
export function trimmedMean(values: readonly number[], share: number = DEFAULT_DISCARD_TOP_BOTTOM): number {
  if (values.length === 0) return 0;
  const drop = Math.floor(values.length * discardShare(share));
  const kept = [...values].sort((a, b) => a - b).slice(drop, values.length - drop);
  return kept.reduce((s, v) => s + v, 0) / kept.length;
}

/** One power value's statistics, as Power Tuning's executor computes them. */
export function powerValueStats(
  value: number,
  reports: readonly ReportDurations[],
  options: { architecture: Architecture; discardTopBottom?: number; prices?: LambdaPrices },
): PowerTuningStat & {
  readonly averagePrice: number;
  readonly averageDuration: number;
  readonly totalCost: number;
} {
  const share = options.discardTopBottom ?? DEFAULT_DISCARD_TOP_BOTTOM;
  const billed = reports.map(totalBilled);
  const cost = (ms: number) =>
    lambdaCostUsd({ billedMs: ms, memoryMb: value, architecture: options.architecture }, options.prices);
  return {
    value,
    averageDuration: trimmedMean(reports.map(totalDuration), share),
    // The average billed duration, rounded up to a whole ms, priced at this memory.
    averagePrice: cost(trimmedMean(billed, share)),
    totalCost: billed.reduce((s, ms) => s + cost(ms), 0),
  };
}

interface Candidate {
  readonly power: number;
  readonly cost: number;
  readonly duration: number;
}

/**
 * The strategy's pick: `cost` the cheapest (the faster on a tie), `speed` the fastest (the
 * cheaper on a tie), `balanced` the lowest weight x cost/max cost + (1 - weight) x
 * duration/max duration (weight clamped to 0..1: 1 is cost alone, 0 speed alone).
 */
export function choosePower(
  stats: readonly PowerTuningStat[],
  strategy: Strategy,
  balancedWeight: number = DEFAULT_BALANCED_WEIGHT,
): Candidate {
  // Power values whose invocations gave no duration take no part, as in Power Tuning.
  const c: Candidate[] = stats
    .filter((s) => (s.averageDuration ?? 0) > 0)
    .map((s) => ({ power: s.value, cost: s.averagePrice ?? 0, duration: s.averageDuration ?? 0 }));
  if (c.length === 0) throw new Error('no power value has a duration: nothing to choose from');
  let order: (a: Candidate, b: Candidate) => number;
  if (strategy === 'cost') order = (a, b) => a.cost - b.cost || a.duration - b.duration;
  else if (strategy === 'speed') order = (a, b) => a.duration - b.duration || a.cost - b.cost;
  else {
    const w = Math.min(Math.max(balancedWeight, 0), 1);
    const maxCost = Math.max(...c.map((x) => x.cost));
    const maxDuration = Math.max(...c.map((x) => x.duration));
    const score = (x: Candidate) =>
      w * (maxCost > 0 ? x.cost / maxCost : 0) + (1 - w) * (maxDuration > 0 ? x.duration / maxDuration : 0);
    order = (a, b) => score(a) - score(b);
  }
  return [...c].sort(order)[0];
}

/** Power Tuning's visualization link: sizes (int16), durations and costs (float32), base64, in the hash. */
export function visualizationUrl(
  stats: readonly PowerTuningStat[],
  base: string = VISUALIZATION_URL,
): string {
  const sorted = [...stats].filter((s) => (s.averageDuration ?? 0) > 0).sort((a, b) => a.value - b.value);
  const b64 = (a: Int16Array | Float32Array) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return `${base}#${[
    b64(Int16Array.from(sorted.map((s) => s.value))),
    b64(Float32Array.from(sorted.map((s) => s.averageDuration ?? 0))),
    b64(Float32Array.from(sorted.map((s) => s.averagePrice ?? 0))),
  ].join(';')}`;
}

/**
 * The output Power Tuning's state machine returns with includeOutputResults: the chosen
 * power, its cost and duration, `stateMachine` (locally: no Step Functions cost, the Lambda
 * cost of every invocation, the visualization) and always `stats`.
 */
export function tuningOutput(
  stats: readonly ReturnType<typeof powerValueStats>[],
  strategy: Strategy,
  balancedWeight?: number,
): PowerTuningOutput & { readonly stats: readonly PowerTuningStat[] } {
  const best = choosePower(stats, strategy, balancedWeight);
  return {
    power: best.power,
    cost: best.cost,
    duration: best.duration,
    stateMachine: {
      executionCost: 0,
      lambdaCost: stats.reduce((s, x) => s + x.totalCost, 0),
      visualization: visualizationUrl(stats),
    },
    stats: stats.map((s) => ({
      value: s.value,
      averagePrice: s.averagePrice,
      averageDuration: s.averageDuration,
    })),
  };
}

export { DEFAULT_PRICES };
