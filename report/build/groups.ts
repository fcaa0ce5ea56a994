/**
 * A report's groups: one per target x keep-alive variant x phase (x memory size when a run
 * compared several). Sources fill GroupInputs; assembleGroups turns them into GroupReports.
 */

import { OPERATIONS, parseFunctionKey } from '../../core/lab-functions';
import { METRIC } from '../../core/lab-metrics.mjs';
import type { InitRecord, ReportRecord } from '../../runs/lambda-log-parser';
import { ReportAccumulator } from '../../runs/report-accumulator';
import {
  type AfterGap,
  type ArtilleryReport,
  type ArtillerySummary,
  type LoadShape,
  summarizeRun,
  timeline,
} from '../../runs/results';
import { type DatabaseSamples, databaseSamples, dbRequestStats } from '../../runs/samples';
import type {
  ColdStarts,
  ConnectionReuse,
  Distribution,
  GroupCost,
  GroupReport,
  LayerStats,
  TimelinePoint,
} from '../report-model';
import { distributionOf, durationSummary, initSummary } from './distribution';

// The operations in core's order (create, get first); the runs follow it.
export const PHASE_ORDER: readonly string[] = OPERATIONS;
export const VARIANT_ORDER = ['off', 'on', 'default'];

/** What a handler's timing block says about one call. */
export interface HandlerSample {
  readonly status: number;
  readonly dbMs?: number;
  readonly newConnection: boolean;
  /** absent in CloudWatch timing lines written before it existed */
  readonly dbRequests?: number;
  readonly coldStart: boolean;
  readonly initType: string;
}

export interface GroupInputs {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  /** The function memory setting, MB, when the run compared several (a group per size). */
  readonly memoryMb?: number;
  readonly clientMs: number[];
  artillery?: ArtilleryReport;
  run?: { readonly requests: number; readonly errors: number; readonly throughputPerSec: number };
  load?: LoadShape;
  afterGap?: AfterGap;
  cost?: GroupCost;
  /** the group's REPORT and INIT_REPORT lines, folded */
  readonly lines: ReportAccumulator;
  /** null when the input has no handler timings at all */
  handler: HandlerSample[] | null;
}

export class Groups {
  private readonly map = new Map<string, GroupInputs>();

  get(target: string, keepAlive: string, phase: string, memoryMb?: number): GroupInputs {
    const id = groupId(target, keepAlive, phase, memoryMb);
    let g = this.map.get(id);
    if (!g) {
      g = {
        target,
        keepAlive,
        phase,
        ...(memoryMb === undefined ? {} : { memoryMb }),
        clientMs: [],
        lines: new ReportAccumulator(),
        handler: null,
      };
      this.map.set(id, g);
    }
    return g;
  }

  all(): GroupInputs[] {
    return [...this.map.values()].sort(
      (a, b) =>
        a.target.localeCompare(b.target) ||
        byRank(PHASE_ORDER, a.phase, b.phase) ||
        byRank(VARIANT_ORDER, a.keepAlive, b.keepAlive) ||
        (a.memoryMb ?? 0) - (b.memoryMb ?? 0),
    );
  }
}

/** Known values in the list's order, unknown ones after them alphabetically. */
export function byRank(list: readonly string[], a: string, b: string): number {
  const rank = (v: string) => (list.includes(v) ? list.indexOf(v) : list.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}

export function groupId(target: string, keepAlive: string, phase: string, memoryMb?: number): string {
  return `${target}-${phase}-keepalive-${keepAlive}${memoryMb === undefined ? '' : `-${memoryMb}mb`}`;
}

export function addHandlerSample(g: GroupInputs, s: HandlerSample): void {
  g.handler ??= [];
  g.handler.push(s);
}

/** A summary of microseconds (the processor's lab.*_us metrics) in milliseconds. */
function usToMs(s: ArtillerySummary): ArtillerySummary {
  const ms = (us: number) => us / 1000;
  return {
    ...s,
    min: ms(s.min),
    max: ms(s.max),
    mean: ms(s.mean),
    p50: ms(s.p50),
    median: ms(s.median),
    p75: ms(s.p75),
    p90: ms(s.p90),
    p95: ms(s.p95),
    p99: ms(s.p99),
    p999: ms(s.p999),
  };
}

/** Artillery's own percentiles (whole milliseconds), when no per-request client time exists. */
function artilleryDistribution(s: ArtillerySummary): Distribution {
  return {
    ladder: {
      count: s.count,
      min: s.min,
      mean: s.mean,
      p50: s.p50,
      p75: s.p75,
      p90: s.p90,
      p95: s.p95,
      p99: s.p99,
      'p99.9': s.p999,
      max: s.max,
    },
    cdf: [
      { ms: s.min, percentile: 0 },
      { ms: s.p50, percentile: 50 },
      { ms: s.p75, percentile: 75 },
      { ms: s.p90, percentile: 90 },
      { ms: s.p95, percentile: 95 },
      { ms: s.p99, percentile: 99 },
      { ms: s.p999, percentile: 99.9 },
      { ms: s.max, percentile: 100 },
    ],
  };
}

function coldStartsOf(g: GroupInputs): ColdStarts {
  const byInitType: Record<string, number> = {};
  let handlerColdStarts: number | null = null;
  if (g.handler) {
    handlerColdStarts = 0;
    for (const s of g.handler) {
      if (!s.coldStart) continue;
      handlerColdStarts += 1;
      byInitType[s.initType] = (byInitType[s.initType] ?? 0) + 1;
    }
  }
  return {
    invocations: g.lines.invocations,
    onDemandColdStarts: g.lines.onDemandColdStarts,
    provisionedInits: g.lines.provisionedInits,
    failedInits: g.lines.failedInits,
    handlerColdStarts,
    coldStartsByInitType: byInitType,
    init: initSummary(g.lines.init),
    cold: durationSummary(g.lines.cold),
    warm: durationSummary(g.lines.warm),
  };
}

function connectionsOf(db: DatabaseSamples): ConnectionReuse | null {
  if (db.calls === 0) return null;
  return {
    calls: db.calls,
    newConnections: db.newConnections,
    newConnectionShare: db.newConnectionShare ?? 0,
    newConnection: distributionOf(db.newConnectionDbMs),
    reused: distributionOf(db.reusedDbMs),
  };
}

function assemble(g: GroupInputs, t0: number): GroupReport {
  const layers: LayerStats[] = [];
  const client = distributionOf(g.clientMs);
  const artillerySummary = g.artillery?.aggregate.summaries['http.response_time'];
  if (client) layers.push({ layer: 'client', source: 'timings.jsonl clientMs', ...client });
  else if (artillerySummary && artillerySummary.count > 0) {
    layers.push({
      layer: 'client',
      source: "Artillery's http.response_time summary (whole ms)",
      ...artilleryDistribution(artillerySummary),
    });
  }
  const fn = distributionOf(g.lines.duration);
  if (fn) layers.push({ layer: 'function', source: 'REPORT Duration', ...fn });
  // The same samples and percentiles as summary.json's dbMs and newConnectionShare (report/samples.ts).
  const samples = databaseSamples(g.handler ?? []);
  const db = distributionOf(samples.dbMs);
  const dbSketch = g.artillery?.aggregate.summaries[METRIC.dbUs];
  if (db) layers.push({ layer: 'database', source: 'handler timing dbMs', ...db });
  else if (dbSketch && dbSketch.count > 0) {
    // A distributed run's handler timings came back only as Artillery's merged sketch.
    layers.push({
      layer: 'database',
      source: "Artillery's lab.db_us summary (the handlers' dbMs, merged as a sketch)",
      ...artilleryDistribution(usToMs(dbSketch)),
    });
  }

  const run = g.run ?? (g.artillery ? summarizeRun(g.artillery) : undefined);
  const points: TimelinePoint[] = g.artillery
    ? timeline(g.artillery).map((p) => ({
        offsetS: (p.startMs - t0) / 1000,
        startMs: p.startMs,
        requests: p.requests,
        responses: p.responses,
        errors: p.errors,
        throughputPerSec: p.throughputPerSec,
      }))
    : [];
  return {
    id: groupId(g.target, g.keepAlive, g.phase, g.memoryMb),
    target: g.target,
    keepAlive: g.keepAlive,
    phase: g.phase,
    memoryMb: g.memoryMb ?? null,
    label: `${g.target} ${g.phase}, keep-alive ${g.keepAlive}${g.memoryMb === undefined ? '' : `, ${g.memoryMb} MB`}`,
    requests: run?.requests ?? null,
    errors: run?.errors ?? null,
    throughputPerSec: run?.throughputPerSec ?? null,
    throughputPerMinute: run ? run.throughputPerSec * 60 : null,
    load: g.load ?? null,
    afterGap: g.afterGap ?? null,
    layers,
    coldStarts: coldStartsOf(g),
    connections: connectionsOf(samples),
    dbRequests: dbRequestStats(samples),
    timeline: points,
    cost: g.cost ?? null,
  };
}

export function assembleGroups(groups: Groups): GroupReport[] {
  const all = groups.all();
  const starts = all.flatMap((g) => g.artillery?.intermediate.map((m) => m.period) ?? []);
  const t0 = starts.length > 0 ? Math.min(...starts) : 0;
  return all.map((g) => assemble(g, t0));
}

/** The run group of a line whose source is a lab function key (local `[key]` prefixes, or mapped log groups). */
export function keyedGroupOf(
  keyOf: (source: string | undefined) => string | undefined,
  groups: Groups,
): (source: string | undefined) => GroupInputs | undefined {
  return (source) => {
    const key = keyOf(source);
    const parts = key ? parseFunctionKey(key) : undefined;
    return parts ? groups.get(parts.target, parts.keepAlive ?? 'default', parts.operation) : undefined;
  };
}

export function groupsFromKeyedReports(
  reports: readonly ReportRecord[],
  inits: readonly InitRecord[],
  keyOf: (source: string | undefined) => string | undefined,
  groups: Groups,
): void {
  const groupOf = keyedGroupOf(keyOf, groups);
  for (const r of reports) groupOf(r.source)?.lines.addReport(r);
  for (const i of inits) groupOf(i.source)?.lines.addInit(i);
}
