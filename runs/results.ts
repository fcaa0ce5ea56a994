/**
 * One load phase's row: the handlers' timings JSONL (see lab-processor.mjs) read and summarized,
 * joined with Artillery's view of the phase (runs/artillery-reader.ts) into a summary.json row.
 */
import { readFileSync } from 'node:fs';
import { isTimingLine, type TimingLine } from '../core/timing.mjs';
import type { RunSummary } from './artillery-reader';
import { type DbCommandsSummary, summarizeCommands } from './db-commands';
import { databaseSamples, dbPercentiles, dbRequestStats, dbRoundTripStats, type TimedCall } from './samples';
import type { AfterGap, LabRow, LoadShape } from './summary-schema';

export type { Timing, TimingLine } from '../core/timing.mjs';
export {
  type ArtilleryMetrics,
  type ArtilleryReport,
  type ArtillerySummary,
  type PeriodPoint,
  parseArtilleryReport,
  type RunSummary,
  readArtilleryReport,
  summarizeRun,
  timeline,
} from './artillery-reader';
// summary.json's types are inferred from its schema; Artillery's JSON has its own reader.
// Both re-exported for the modules that join them into rows.
export type { AfterGap, LabRow, LoadShape, Percentiles } from './summary-schema';

export interface TimingSummary {
  readonly responses: number;
  /** responses whose body carried a timing block */
  readonly withTiming: number;
  /** responses that reached the database (report/samples.ts: a 400 did not) */
  readonly databaseCalls: number;
  /** handler database time of those calls; null without any */
  readonly dbMs: { readonly p50: number; readonly p99: number } | null;
  /** requests (HTTP) or commands the database calls sent, per call */
  readonly dbRequests: { readonly p50: number; readonly max: number } | null;
  /** round trips the database calls waited for, per call; null in timings written before them */
  readonly dbRoundTrips: { readonly p50: number; readonly max: number } | null;
  /** the commands per call by name (QLDB), most frequent breakdown first; null where none are named */
  readonly dbCommands: DbCommandsSummary | null;
  /** distinct execution environments that answered (timing.environment); null before it existed */
  readonly environments: number | null;
  /** most requests in flight at once, from each response's time and its time to first byte */
  readonly maxInFlight: number;
  readonly newConnections: number;
  /** newConnections / databaseCalls; null without any */
  readonly newConnectionShare: number | null;
  readonly coldStarts: number;
  /** initType -> count */
  readonly initTypes: Readonly<Record<string, number>>;
}

// ---------------------------------------------------------------- handler timings

/** Parses the timings JSONL; a line that does not fit throws with its line number. */
export function parseTimingLines(text: string): TimingLine[] {
  const lines: TimingLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      throw new Error(`timings line ${i + 1}: ${(e as Error).message}`);
    }
    if (!isTimingLine(parsed)) throw new Error(`timings line ${i + 1} is not a timing line: ${raw}`);
    lines.push(parsed);
  });
  return lines;
}

export function readTimingLines(path: string): TimingLine[] {
  return parseTimingLines(readFileSync(path, 'utf8'));
}

export interface TimingFilter {
  readonly target?: string;
  readonly variant?: string;
  readonly phase?: string;
  /** Lines of this memory setting only (lines without one match any). */
  readonly memoryMb?: number;
}

export function filterTimings(lines: readonly TimingLine[], f: TimingFilter): TimingLine[] {
  return lines.filter(
    (l) =>
      (f.target === undefined || l.target === f.target) &&
      (f.variant === undefined || l.variant === f.variant) &&
      (f.phase === undefined || l.phase === f.phase) &&
      (f.memoryMb === undefined || l.memoryMb === undefined || l.memoryMb === f.memoryMb),
  );
}

/**
 * Handler-side numbers: dbMs percentiles and connection reuse over the calls that reached the
 * database, with the report's filter and HDR percentiles (report/samples.ts), so summary.json
 * and report.json agree; cold starts over every timed response.
 */
export function summarizeTimings(lines: readonly TimingLine[]): TimingSummary {
  let withTiming = 0;
  let coldStarts = 0;
  const initTypes: Record<string, number> = {};
  const calls: TimedCall[] = [];
  const environments = new Set<string>();
  for (const { status, timing } of lines) {
    if (!timing) continue;
    withTiming += 1;
    calls.push({
      status,
      dbMs: timing.dbMs,
      newConnection: timing.newConnection,
      dbRequests: timing.dbRequests,
      dbRoundTrips: timing.dbRoundTrips,
    });
    if (timing.environment !== undefined) environments.add(timing.environment);
    if (timing.coldStart) coldStarts += 1;
    initTypes[timing.initType] = (initTypes[timing.initType] ?? 0) + 1;
  }
  const db = databaseSamples(calls);
  return {
    responses: lines.length,
    withTiming,
    databaseCalls: db.calls,
    dbMs: dbPercentiles(db),
    dbRequests: dbRequestStats(db),
    dbRoundTrips: dbRoundTripStats(db),
    dbCommands: summarizeCommands(lines),
    environments: environments.size > 0 ? environments.size : null,
    maxInFlight: maxInFlight(lines),
    newConnections: db.newConnections,
    newConnectionShare: db.newConnectionShare,
    coldStarts,
    initTypes,
  };
}

/**
 * The most requests in flight at once: each response spans [at - clientMs, at] (its time to
 * first byte before the moment it was processed); responses without a client time are left out.
 */
export function maxInFlight(lines: readonly Pick<TimingLine, 'at' | 'clientMs'>[]): number {
  const edges: [number, number][] = [];
  for (const l of lines) {
    if (l.clientMs === null) continue;
    edges.push([l.at - l.clientMs, 1], [l.at, -1]);
  }
  // Ends before starts at the same instant: back-to-back requests are not concurrent.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, d] of edges) {
    now += d;
    max = Math.max(max, now);
  }
  return max;
}

export interface LabRowLabels {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
}

/**
 * What the phase after an idle gap says about connections that aged in it: warm environments'
 * calls (coldStart false) split by whether they opened a connection, with the database filter of
 * summarizeTimings.
 */
export function summarizeAfterGap(lines: readonly TimingLine[], gapS: number): AfterGap {
  const warm = lines.flatMap(({ status, timing }) =>
    timing && !timing.coldStart
      ? [{ status, dbMs: timing.dbMs, newConnection: timing.newConnection, dbRequests: timing.dbRequests }]
      : [],
  );
  const db = databaseSamples(warm);
  return {
    gapS,
    warmCalls: db.calls,
    firstCallsNewConnection: db.newConnections,
    newConnectionDbMsP50: db.newConnectionDbMs.valuesAt([50])[0] ?? null,
    reusedDbMsP50: db.reusedDbMs.valuesAt([50])[0] ?? null,
  };
}

/** An open loop whose rate the caller did not say (rows written before closed loops existed). */
const UNSAID_OPEN: LoadShape = { mode: 'open', parallel: null, ratePerS: null };

/** Joins artillery's view and the handlers' view of one phase into a table row. */
export function toLabRow(
  labels: LabRowLabels,
  run: RunSummary,
  timings: TimingSummary,
  initMsP50: number | null = null,
  load: LoadShape = UNSAID_OPEN,
  afterGap?: AfterGap,
): LabRow {
  return {
    ...labels,
    mode: load.mode,
    parallel: load.parallel,
    ratePerS: load.ratePerS,
    requests: run.requests,
    errors: run.errors,
    throughputPerSec: run.throughputPerSec,
    latencyMs: run.latencyMs,
    dbMs: timings.dbMs,
    dbRequests: timings.dbRequests,
    dbRoundTrips: timings.dbRoundTrips,
    ...(timings.dbCommands ? { dbCommands: timings.dbCommands } : {}),
    environments: timings.environments,
    maxInFlight: timings.maxInFlight,
    newConnectionShare: timings.newConnectionShare,
    coldStarts: timings.coldStarts,
    initMsP50,
    ...(afterGap ? { afterGap } : {}),
  };
}
