/**
 * The Artillery reader: artillery 2.x `--output` JSON, parsed field by field (a field that does
 * not fit throws naming it), and one run's headline numbers and 10 s timeline from it.
 */
import { readFileSync } from 'node:fs';
import { isRecord } from '../core/timing.mjs';
import type { Percentiles } from './summary-schema';

/** One histogram summary as artillery writes it (values in the metric's unit, ms for time). */
export interface ArtillerySummary {
  readonly min: number;
  readonly max: number;
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly median: number;
  readonly p75: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
}

/** The aggregate, or one intermediate period (artillery buckets by 10 s of wall clock). */
export interface ArtilleryMetrics {
  readonly counters: Readonly<Record<string, number>>;
  readonly rates: Readonly<Record<string, number>>;
  readonly summaries: Readonly<Record<string, ArtillerySummary>>;
  /** epoch ms; the aggregate's is its last period */
  readonly period: number;
  readonly firstCounterAt?: number;
  readonly lastCounterAt?: number;
  readonly firstMetricAt?: number;
  readonly lastMetricAt?: number;
}

export interface ArtilleryReport {
  readonly aggregate: ArtilleryMetrics;
  readonly intermediate: readonly ArtilleryMetrics[];
}

export interface RunSummary {
  readonly requests: number;
  readonly responses: number;
  /** status code -> count */
  readonly codes: Readonly<Record<string, number>>;
  /** non-2xx responses + failed requests/VUs (see summarizeRun) */
  readonly errors: number;
  readonly throughputPerSec: number;
  /** client-side time to first byte (artillery's http.response_time); null without responses */
  readonly latencyMs: Percentiles | null;
  /** first to last metric of the run, s */
  readonly windowS: number;
}

export interface PeriodPoint {
  /** epoch ms at which the 10 s bucket starts */
  readonly startMs: number;
  readonly requests: number;
  readonly responses: number;
  readonly errors: number;
  /** null when the bucket overlaps the run by less than a second: too short to be a rate */
  readonly throughputPerSec: number | null;
  readonly latencyMs: Percentiles | null;
}

const PERIOD_MS = 10_000;

// ---------------------------------------------------------------- parsing, no `any`

function numberRecord(v: unknown, where: string): Record<string, number> {
  if (v === undefined) return {};
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) {
    if (typeof n === 'number') out[k] = n;
  }
  return out;
}

function optionalNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

const SUMMARY_KEYS = [
  'min',
  'max',
  'count',
  'mean',
  'p50',
  'median',
  'p75',
  'p90',
  'p95',
  'p99',
  'p999',
] as const;

function parseSummaries(v: unknown, where: string): Record<string, ArtillerySummary> {
  if (v === undefined) return {};
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  const out: Record<string, ArtillerySummary> = {};
  for (const [name, s] of Object.entries(v)) {
    if (!isRecord(s)) continue;
    const values: Partial<Record<(typeof SUMMARY_KEYS)[number], number>> = {};
    for (const key of SUMMARY_KEYS) {
      const n = s[key];
      if (typeof n !== 'number') throw new Error(`${where}.${name}.${key} must be a number`);
      values[key] = n;
    }
    out[name] = values as ArtillerySummary;
  }
  return out;
}

function parseMetrics(v: unknown, where: string): ArtilleryMetrics {
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  // Intermediate periods carry the period as a string, the aggregate as a number.
  const period = Number(v.period);
  if (!Number.isFinite(period)) throw new Error(`${where}.period must be a timestamp`);
  return {
    counters: numberRecord(v.counters, `${where}.counters`),
    rates: numberRecord(v.rates, `${where}.rates`),
    summaries: parseSummaries(v.summaries, `${where}.summaries`),
    period,
    firstCounterAt: optionalNumber(v.firstCounterAt),
    lastCounterAt: optionalNumber(v.lastCounterAt),
    firstMetricAt: optionalNumber(v.firstMetricAt),
    lastMetricAt: optionalNumber(v.lastMetricAt),
  };
}

/** Parses artillery 2.x `--output` JSON; throws naming the field that does not fit. */
export function parseArtilleryReport(json: unknown): ArtilleryReport {
  if (!isRecord(json)) throw new Error('artillery report must be a JSON object');
  const intermediate = json.intermediate ?? [];
  if (!Array.isArray(intermediate)) throw new Error('intermediate must be an array');
  return {
    aggregate: parseMetrics(json.aggregate, 'aggregate'),
    intermediate: intermediate.map((m, i) => parseMetrics(m, `intermediate[${i}]`)),
  };
}

export function readArtilleryReport(path: string): ArtilleryReport {
  return parseArtilleryReport(JSON.parse(readFileSync(path, 'utf8')));
}

// ---------------------------------------------------------------- one run

/**
 * Artillery's summaries come from a DDSketch at 1% relative accuracy (@artilleryio/int-core's
 * ssms.js), while its max is exact: a quantile can land up to 1% above the max (p99 13.1 with
 * max 13 was seen). No latency exceeds the max, so a quantile is capped there.
 */
function percentiles(s: ArtillerySummary | undefined): Percentiles | null {
  if (!s || s.count === 0) return null;
  const cap = (q: number) => Math.min(q, s.max);
  return { p50: cap(s.p50), p95: cap(s.p95), p99: cap(s.p99), max: s.max };
}

function sumWhere(counters: Readonly<Record<string, number>>, keep: (name: string) => boolean): number {
  let total = 0;
  for (const [name, n] of Object.entries(counters)) if (keep(name)) total += n;
  return total;
}

const NON_2XX = /^http\.codes\.(?!2\d\d$)\d+$/;

/**
 * Non-2xx responses plus failures that produced no response. Every failed VU emits an
 * `errors.<code>` event (ECONNREFUSED, ETIMEDOUT, a hook's error...), so counting both
 * `errors.*` and `vusers.failed` would count one failure twice; the larger one covers both.
 */
function errorsOf(counters: Readonly<Record<string, number>>): number {
  const non2xx = sumWhere(counters, (n) => NON_2XX.test(n));
  const errorEvents = sumWhere(counters, (n) => n.startsWith('errors.'));
  return non2xx + Math.max(errorEvents, counters['vusers.failed'] ?? 0);
}

function codesOf(counters: Readonly<Record<string, number>>): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const [name, n] of Object.entries(counters)) {
    const m = /^http\.codes\.(\d+)$/.exec(name);
    if (m) codes[m[1]] = n;
  }
  return codes;
}

/** One run's headline numbers from the aggregate section. */
export function summarizeRun(report: ArtilleryReport): RunSummary {
  const a = report.aggregate;
  const responses = a.counters['http.responses'] ?? 0;
  const first = a.firstCounterAt ?? a.firstMetricAt;
  const last = a.lastCounterAt ?? a.lastMetricAt;
  const windowS = first !== undefined && last !== undefined ? Math.max(0, (last - first) / 1000) : 0;
  // n responses bound n - 1 gaps: a steady 5/s run over 2.8 s reads 5.0, not 5.36.
  const throughputPerSec = responses >= 2 && windowS > 0 ? (responses - 1) / windowS : 0;
  return {
    requests: a.counters['http.requests'] ?? 0,
    responses,
    codes: codesOf(a.counters),
    errors: errorsOf(a.counters),
    throughputPerSec,
    latencyMs: percentiles(a.summaries['http.response_time']),
    windowS,
  };
}

/** Throughput, errors and latency per 10 s bucket, for plots over time. */
export function timeline(report: ArtilleryReport): PeriodPoint[] {
  const a = report.aggregate;
  const runStart = a.firstMetricAt ?? Number.NEGATIVE_INFINITY;
  const runEnd = a.lastMetricAt ?? Number.POSITIVE_INFINITY;
  return [...report.intermediate]
    .sort((x, y) => x.period - y.period)
    .map((m) => {
      const responses = m.counters['http.responses'] ?? 0;
      const overlapS = (Math.min(m.period + PERIOD_MS, runEnd) - Math.max(m.period, runStart)) / 1000;
      return {
        startMs: m.period,
        requests: m.counters['http.requests'] ?? 0,
        responses,
        errors: errorsOf(m.counters),
        throughputPerSec: overlapS >= 1 ? responses / overlapS : null,
        latencyMs: percentiles(m.summaries['http.response_time']),
      };
    });
}
