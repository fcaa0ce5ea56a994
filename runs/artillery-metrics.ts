/**
 * The handlers' side of a phase read back from Artillery's report alone: the custom metrics the
 * processor emits for every response (core/lab-metrics.mjs), which Artillery merges across its
 * workers. What a distributed run's summary is built from, where no timings.jsonl came back.
 *
 * Counts are exact. Percentiles come from Artillery's sketches (DDSketch at 1% relative accuracy)
 * where timings.jsonl gives HDR's 0.1%, and a sketch's quantile q is the sample at rank q(n-1)
 * where HDR's is at ceil(qn): a p99 over fewer than a hundred calls can be one sample lower.
 * maxInFlight is the busiest worker's peak (exact with one worker, a floor with several).
 */
import { METRIC, parseBreakdownKey } from '../core/lab-metrics.mjs';
import type { ArtilleryReport, ArtillerySummary } from './artillery-reader';
import type { CommandBreakdown, DbCommandsSummary } from './db-commands';
import type { TimingSummary } from './results';
import type { AfterGap, LoadShape } from './summary-schema';

/** Relative accuracy of Artillery's sketches (@artilleryio/int-core ssms.js relativeAccuracy). */
export const SKETCH_RELATIVE_ACCURACY = 0.01;

const US_PER_MS = 1000;
/** µs to ms at the sketch's resolution (Artillery rounds summaries to 0.1 µs), without float noise. */
const toMs = (us: number) => Math.round(us * 10) / (10 * US_PER_MS);

/** Whether the report carries the processor's metrics at all (reports older than them do not). */
export function hasLabMetrics(report: ArtilleryReport): boolean {
  return report.aggregate.counters[METRIC.responses] !== undefined;
}

function counter(report: ArtilleryReport, name: string): number {
  return report.aggregate.counters[name] ?? 0;
}

function countersUnder(report: ArtilleryReport, prefix: string): [string, number][] {
  return Object.entries(report.aggregate.counters).flatMap(([name, n]) =>
    name.startsWith(prefix) ? [[name.slice(prefix.length), n] as [string, number]] : [],
  );
}

function summary(report: ArtilleryReport, name: string): ArtillerySummary | undefined {
  const s = report.aggregate.summaries[name];
  return s && s.count > 0 ? s : undefined;
}

/** A sketch's quantile can land up to 1% above the exact max: capped there (as artillery-reader does). */
const capped = (q: number, s: ArtillerySummary) => Math.min(q, s.max);

function msPercentiles(s: ArtillerySummary | undefined): { p50: number; p99: number } | null {
  if (!s) return null;
  return { p50: toMs(capped(s.p50, s)), p99: toMs(capped(s.p99, s)) };
}

function countStats(s: ArtillerySummary | undefined): { p50: number; max: number } | null {
  if (!s) return null;
  return { p50: Math.round(capped(s.p50, s)), max: Math.round(s.max) };
}

function commandsOf(report: ArtilleryReport): DbCommandsSummary | null {
  const breakdowns: CommandBreakdown[] = [];
  for (const [key, calls] of countersUnder(report, METRIC.dbCommandsPrefix)) {
    const commands = parseBreakdownKey(key);
    if (!commands || calls <= 0) continue;
    breakdowns.push({ commands, total: Object.values(commands).reduce((a, b) => a + b, 0), calls });
  }
  if (breakdowns.length === 0) return null;
  breakdowns.sort((a, b) => b.calls - a.calls || a.total - b.total);
  return { calls: breakdowns.reduce((a, b) => a + b.calls, 0), breakdowns };
}

/** The handler-side numbers of one phase, as summarizeTimings gives them from timings.jsonl. */
export function timingSummaryFromReport(report: ArtilleryReport): TimingSummary {
  const dbCalls = counter(report, METRIC.dbCalls);
  const newConnections = counter(report, METRIC.newConnections);
  const environments = countersUnder(report, METRIC.environmentPrefix).length;
  return {
    responses: counter(report, METRIC.responses),
    withTiming: counter(report, METRIC.timed),
    databaseCalls: dbCalls,
    dbMs: msPercentiles(summary(report, METRIC.dbUs)),
    dbRequests: countStats(summary(report, METRIC.dbRequests)),
    dbRoundTrips: countStats(summary(report, METRIC.dbRoundTrips)),
    dbCommands: commandsOf(report),
    environments: environments > 0 ? environments : null,
    maxInFlight: Math.round(summary(report, METRIC.inFlight)?.max ?? 0),
    newConnections,
    newConnectionShare: dbCalls === 0 ? null : newConnections / dbCalls,
    coldStarts: counter(report, METRIC.coldStarts),
    initTypes: Object.fromEntries(countersUnder(report, METRIC.initTypePrefix)),
  };
}

/** What the phase after an idle gap says about kept connections, as summarizeAfterGap gives it. */
export function afterGapFromReport(report: ArtilleryReport, gapS: number): AfterGap {
  const p50 = (name: string) => {
    const s = summary(report, name);
    return s ? toMs(capped(s.p50, s)) : null;
  };
  return {
    gapS,
    warmCalls: counter(report, METRIC.warmDbCalls),
    firstCallsNewConnection: counter(report, METRIC.warmNewConnections),
    newConnectionDbMsP50: p50(METRIC.warmNewConnectionDbUs),
    reusedDbMsP50: p50(METRIC.warmReusedDbUs),
  };
}

/** The load's shape as the virtual users reported it; undefined when they did not. */
export function loadShapeFromReport(report: ArtilleryReport): LoadShape | undefined {
  const closed = counter(report, METRIC.loadClosed);
  if (closed > 0) return { mode: 'closed', parallel: closed, ratePerS: null };
  const open = countersUnder(report, METRIC.loadOpenPrefix)
    .map(([rate]) => Number(rate))
    .filter((r) => Number.isFinite(r) && r > 0);
  return open.length === 1 ? { mode: 'open', parallel: null, ratePerS: open[0] } : undefined;
}
