/**
 * Builds a `LabReport` (report-model.ts) from one of three inputs:
 *   - a load run's results folder (summary.json, artillery-*.json, timings.jsonl, lambda-logs.log),
 *   - a file of Lambda log lines as CloudWatch exports them (`--logs`),
 *   - the deployed stack's log groups through Logs Insights (`--from-cloudwatch`).
 * Each entry point only reads its source into groups, functions and notes; assembleReport
 * turns those parts into the one LabReport shape (groups, keep-alive ratios, tuning...).
 * Bad input (a missing folder, no summary.json, JSON that does not parse) throws a
 * ReportInputError before anything is written; malformed log lines are counted instead.
 */
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { AwsOptions } from '../aws/aws-options';
import type { InsightsProgress } from '../aws/logs-insights';
import { UsageError } from '../core/errors';
import {
  isTarget,
  OPERATIONS,
  parseFunctionKey,
  TARGET_INFO,
  TARGETS,
  type TargetInfo,
} from '../core/lab-functions';
import { isRecord } from '../core/timing.mjs';
import {
  type InitRecord,
  parseLambdaLine,
  parseLambdaLog,
  type ReportRecord,
} from '../runs/lambda-log-parser';
import { ReportAccumulator } from '../runs/report-accumulator';
import {
  type AfterGap,
  type ArtilleryReport,
  type ArtillerySummary,
  type LoadShape,
  parseArtilleryReport,
  parseTimingLines,
  summarizeRun,
  type TimingLine,
  timeline,
} from '../runs/results';
import { type DatabaseSamples, databaseSamples, dbRequestStats } from '../runs/samples';
import { parseTuneResultFile } from '../tune/power-tuning-result';
import { KEEP_ALIVE_REFERENCE, targetFigure } from './article-figures';
import {
  type ColdStarts,
  type ConnectionReuse,
  type Distribution,
  distributionOf,
  durationSummary,
  type FunctionStats,
  type GroupCost,
  type GroupReport,
  initSummary,
  type KeepAliveComparison,
  LAYERS,
  type LabReport,
  type Layer,
  type LayerRatio,
  type LayerStats,
  type MalformedLine,
  type MalformedSummary,
  type P50P99,
  type TargetComparison,
  type TargetRow,
  type TimelinePoint,
  type TuningReport,
} from './report-model';

/** Input the report cannot be built from: the CLI prints the message alone and exits 2. */
export class ReportInputError extends UsageError {}

export interface BuildOptions {
  /**
   * Folders searched for `npm run tune` outputs. @default a results folder: its own `tuning/`
   * alone (what the run wrote, never another run's or the cloud's); logs and CloudWatch: `results/tuning`
   */
  readonly tuningDirs?: readonly string[];
  /** @default new Date() */
  readonly now?: Date;
  /** Progress of a long read (`--logs` on a large export), one line of text each time. */
  readonly progress?: (message: string) => void;
}

/** `--logs` says how far it got every this many lines. */
export const PROGRESS_EVERY_LINES = 100_000;

const DEFAULT_TUNING_DIR = 'results/tuning';
const MALFORMED_EXAMPLES = 10;
// The operations in core's order (create, get first); the runs follow it.
const PHASE_ORDER: readonly string[] = OPERATIONS;
const VARIANT_ORDER = ['off', 'on', 'default'];

// ---------------------------------------------------------------- small readers

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ReportInputError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ReportInputError(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Counts malformed lines and keeps the first few: a file of nothing but garbage stays bounded. */
class MalformedCollector {
  private readonly examples: MalformedLine[] = [];
  private readonly byReason: Record<string, number> = {};
  private count = 0;

  add(file: string, line: number, reason: string, text: string): void {
    this.count += 1;
    this.byReason[reason] = (this.byReason[reason] ?? 0) + 1;
    if (this.examples.length < MALFORMED_EXAMPLES) {
      this.examples.push({ file, line, reason, text: text.length > 200 ? `${text.slice(0, 200)}...` : text });
    }
  }

  summary(): MalformedSummary {
    return { count: this.count, byReason: { ...this.byReason }, examples: [...this.examples] };
  }
}

function parseLogText(text: string, file: string, malformed: MalformedCollector) {
  const parsed = parseLambdaLog(text);
  for (const m of parsed.malformed) malformed.add(file, m.line, m.reason, m.text);
  return parsed;
}

/** Timings line by line: a line cut short by a killed run is counted, not fatal. */
function readTimings(path: string, malformed: MalformedCollector): TimingLine[] {
  const lines: TimingLine[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      if (raw.trim() === '') return;
      try {
        lines.push(...parseTimingLines(raw));
      } catch (e) {
        const reason = /is not a timing line/.test((e as Error).message) ? 'not a timing line' : 'not JSON';
        malformed.add(basename(path), i + 1, reason, raw);
      }
    });
  return lines;
}

// ---------------------------------------------------------------- groups

/** What a handler's timing block says about one call. */
interface HandlerSample {
  readonly status: number;
  readonly dbMs?: number;
  readonly newConnection: boolean;
  /** absent in CloudWatch timing lines written before it existed */
  readonly dbRequests?: number;
  readonly coldStart: boolean;
  readonly initType: string;
}

interface GroupInputs {
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

class Groups {
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
function byRank(list: readonly string[], a: string, b: string): number {
  const rank = (v: string) => (list.includes(v) ? list.indexOf(v) : list.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}

export function groupId(target: string, keepAlive: string, phase: string, memoryMb?: number): string {
  return `${target}-${phase}-keepalive-${keepAlive}${memoryMb === undefined ? '' : `-${memoryMb}mb`}`;
}

function addHandlerSample(g: GroupInputs, s: HandlerSample): void {
  g.handler ??= [];
  g.handler.push(s);
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
  if (db) layers.push({ layer: 'database', source: 'handler timing dbMs', ...db });

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

function assembleGroups(groups: Groups): GroupReport[] {
  const all = groups.all();
  const starts = all.flatMap((g) => g.artillery?.intermediate.map((m) => m.period) ?? []);
  const t0 = starts.length > 0 ? Math.min(...starts) : 0;
  return all.map((g) => assemble(g, t0));
}

export function compareKeepAlive(groups: readonly GroupReport[]): KeepAliveComparison[] {
  const out: KeepAliveComparison[] = [];
  const seen = new Set<string>();
  for (const g of groups) {
    const key = `${g.target}\u0000${g.phase}\u0000${g.memoryMb}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const same = (x: GroupReport) =>
      x.target === g.target && x.phase === g.phase && x.memoryMb === g.memoryMb;
    const off = groups.find((x) => same(x) && x.keepAlive === 'off');
    const on = groups.find((x) => same(x) && x.keepAlive === 'on');
    if (!off || !on) continue;
    const layers: LayerRatio[] = [];
    for (const layer of LAYERS) {
      const a = off.layers.find((l) => l.layer === layer)?.ladder;
      const b = on.layers.find((l) => l.layer === layer)?.ladder;
      if (!a || !b || b.p50 <= 0 || b.p99 <= 0) continue;
      layers.push({
        layer,
        offP50: a.p50,
        onP50: b.p50,
        ratioP50: a.p50 / b.p50,
        offP99: a.p99,
        onP99: b.p99,
        ratioP99: a.p99 / b.p99,
      });
    }
    if (layers.length > 0) out.push({ target: g.target, phase: g.phase, layers });
  }
  return out;
}

/** How messages name a target: TARGET_INFO's label, or the key itself for one the lab does not know. */
export function targetLabel(target: string): string {
  return isTarget(target) ? TARGET_INFO[target].label : target;
}

/** The input's targets in TARGET_INFO's order (DynamoDB first), unknown ones after them. */
function targetsOf(groups: readonly GroupReport[]): string[] {
  return [...new Set(groups.map((g) => g.target))].sort((a, b) => byRank(TARGETS, a, b));
}

/** TARGET_INFO's notice of every target in the input, once each. */
export function targetNotices(groups: readonly GroupReport[]): string[] {
  return targetsOf(groups).flatMap((t) => {
    // Widened to TargetInfo: only some entries carry a notice.
    const info: TargetInfo | undefined = isTarget(t) ? TARGET_INFO[t] : undefined;
    return info?.notice ? [info.notice] : [];
  });
}

function p50p99(g: GroupReport, layer: Layer): P50P99 | null {
  const l = g.layers.find((x) => x.layer === layer)?.ladder;
  return l ? { p50: l.p50, p99: l.p99 } : null;
}

/**
 * The targets side by side, per phase and keep-alive variant, with each database p50 as a
 * multiple of DynamoDB's (the articles' baseline). Empty for a run of one target; a phase and
 * variant only one target ran is left out, there is nothing to compare it with.
 */
export function compareTargets(groups: readonly GroupReport[]): TargetComparison[] {
  const targets = targetsOf(groups);
  if (targets.length < 2) return [];
  const slots = [
    ...new Map(groups.map((g) => [`${g.phase}\u0000${g.keepAlive}\u0000${g.memoryMb}`, g])).values(),
  ].sort(
    (a, b) =>
      byRank(PHASE_ORDER, a.phase, b.phase) ||
      byRank(VARIANT_ORDER, a.keepAlive, b.keepAlive) ||
      (a.memoryMb ?? 0) - (b.memoryMb ?? 0),
  );
  const out: TargetComparison[] = [];
  for (const { phase, keepAlive, memoryMb } of slots) {
    const members = targets.flatMap((t) =>
      groups.filter(
        (g) => g.target === t && g.phase === phase && g.keepAlive === keepAlive && g.memoryMb === memoryMb,
      ),
    );
    if (members.length < 2) continue;
    const dynamodb = members.find((g) => g.target === 'dynamodb');
    const baseP50 = dynamodb ? p50p99(dynamodb, 'database')?.p50 : undefined;
    const rows = members.map((g): TargetRow => {
      const dbMs = p50p99(g, 'database');
      return {
        target: g.target,
        label: targetLabel(g.target),
        clientMs: p50p99(g, 'client'),
        functionMs: p50p99(g, 'function'),
        dbMs,
        dbRequestsP50: g.dbRequests?.p50 ?? null,
        dbRatioToDynamodb: dbMs && baseP50 !== undefined && baseP50 > 0 ? dbMs.p50 / baseP50 : null,
        article: targetFigure(g.target),
        cost: g.cost ?? null,
      };
    });
    out.push({ phase, keepAlive, ...(memoryMb === null ? {} : { memoryMb }), rows });
  }
  return out;
}

// ---------------------------------------------------------------- functions (REPORT lines)

type NameOf = (source: string | undefined) => { name: string; nameFrom: FunctionStats['nameFrom'] };

function functionStats(
  name: string,
  nameFrom: FunctionStats['nameFrom'],
  f: ReportAccumulator,
): FunctionStats | null {
  const d = distributionOf(f.duration);
  if (!d) return null;
  return {
    name,
    nameFrom,
    duration: {
      count: d.ladder.count,
      avg: d.ladder.mean,
      min: d.ladder.min,
      max: d.ladder.max,
      p50: d.ladder.p50,
      p95: d.ladder.p95,
      p99: d.ladder.p99,
    },
    billedDuration: { avg: f.billedDurationAvg },
    maxMemoryUsedMb: { max: f.maxMemoryUsedMb },
    memorySizeMb: f.memorySizeMb,
    init: initSummary(f.init),
    cold: durationSummary(f.cold),
    warm: durationSummary(f.warm),
    provisionedInits: f.provisionedInits,
    failedInits: f.failedInits,
    failedInvocations: f.failedInvocations,
    cdf: d.cdf,
  };
}

/** One accumulator per function name, fed line by line. */
class FunctionCollector {
  private readonly byName = new Map<
    string,
    { readonly nameFrom: FunctionStats['nameFrom']; readonly lines: ReportAccumulator }
  >();

  constructor(private readonly nameOf: NameOf) {}

  private entry(source: string | undefined): ReportAccumulator {
    const { name, nameFrom } = this.nameOf(source);
    let f = this.byName.get(name);
    if (!f) {
      f = { nameFrom, lines: new ReportAccumulator() };
      this.byName.set(name, f);
    }
    return f.lines;
  }

  addReport(r: ReportRecord): void {
    this.entry(r.source).addReport(r);
  }

  addInit(i: InitRecord): void {
    this.entry(i.source).addInit(i);
  }

  stats(warnings: string[]): FunctionStats[] {
    const out: FunctionStats[] = [];
    for (const [name, f] of [...this.byName].sort(([a], [b]) => a.localeCompare(b))) {
      const s = functionStats(name, f.nameFrom, f.lines);
      if (s) out.push(s);
      else
        warnings.push(`${f.lines.initReports} INIT_REPORT line(s) of ${name} have no REPORT line to go with`);
    }
    return out;
  }
}

/**
 * Who a line belongs to: a `/aws/lambda/<name>` log group names the function; a log
 * stream (`2026/01/02/[$LATEST]abc...`) names only an execution environment, so streams
 * are grouped by their version qualifier; a `[key]` prefix is the function itself; with
 * no prefix at all, the file is all we know.
 */
export function functionNameOf(
  source: string | undefined,
  fallback: string,
): { name: string; nameFrom: FunctionStats['nameFrom'] } {
  if (source === undefined || /^\d{4}-\d{2}-\d{2}/.test(source)) return { name: fallback, nameFrom: 'file' };
  const group = /^\/aws\/lambda\/(.+)$/.exec(source);
  if (group) return { name: group[1], nameFrom: 'log-group' };
  const stream = /^\d{4}\/\d{2}\/\d{2}\/(\[[^\]]*\])/.exec(source);
  if (stream) return { name: `log streams ${stream[1]}`, nameFrom: 'log-stream' };
  return { name: source, nameFrom: 'function' };
}

function collectFunctions(
  reports: readonly ReportRecord[],
  inits: readonly InitRecord[],
  nameOf: NameOf,
  warnings: string[],
): FunctionStats[] {
  const functions = new FunctionCollector(nameOf);
  for (const r of reports) functions.addReport(r);
  for (const i of inits) functions.addInit(i);
  return functions.stats(warnings);
}

// ---------------------------------------------------------------- Power Tuning outputs

/** Power Tuning result files (cloud or local) in these folders, as the report shows them. */
export async function readTuning(dirs: readonly string[], warnings: string[]): Promise<TuningReport[]> {
  const files: string[] = [];
  for (const dir of [...new Set(dirs.map((d) => resolve(d)))]) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
    for (const f of readdirSync(dir).sort()) if (f.endsWith('.json')) files.push(join(dir, f));
  }
  const out: TuningReport[] = [];
  for (const file of files) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      warnings.push(`Power Tuning file ${file} skipped: not valid JSON (${(e as Error).message})`);
      continue;
    }
    const saved = parseTuneResultFile(json);
    if (!saved) {
      warnings.push(`Power Tuning file ${file} skipped: it holds no result (power, cost, duration)`);
      continue;
    }
    const { output } = saved;
    out.push({
      file,
      function: saved.function ?? basename(file, '.json'),
      where: saved.where,
      profile: saved.profile,
      executionArn: saved.executionArn,
      strategy: saved.strategy,
      powerMb: output.power,
      costUsd: output.cost,
      durationMs: output.duration,
      visualization: output.stateMachine?.visualization ?? null,
      executionCostUsd: output.stateMachine?.executionCost ?? null,
      lambdaCostUsd: output.stateMachine?.lambdaCost ?? null,
      memory: [...(output.stats ?? [])]
        .sort((a, b) => a.value - b.value)
        .map((s) => ({
          memoryMb: s.value,
          avgDurationMs: s.averageDuration ?? null,
          avgCostUsd: s.averagePrice ?? null,
          totalCostUsd: s.totalCost ?? null,
        })),
    });
  }
  return out;
}

// ---------------------------------------------------------------- one report from any source

/** What a source contributes; everything derived from it is computed once, below. */
interface ReportParts {
  readonly mode: LabReport['mode'];
  readonly input: string;
  readonly files: readonly string[];
  readonly lab: LabReport['lab'];
  readonly groups: Groups;
  readonly functions: readonly FunctionStats[];
  readonly insights: LabReport['insights'];
  readonly malformed: MalformedCollector;
  /** The source's own notes; tuning notes are appended after them. */
  readonly warnings: string[];
  /** Where this source looks for tuning results unless BuildOptions.tuningDirs says otherwise. */
  readonly tuningDirs: readonly string[];
}

/** The one place a LabReport is put together: the three sources differ only in how they read. */
async function assembleReport(parts: ReportParts, options: BuildOptions): Promise<LabReport> {
  const groups = assembleGroups(parts.groups);
  const tuning = await readTuning(options.tuningDirs ?? parts.tuningDirs, parts.warnings);
  return {
    schemaVersion: 1,
    generatedAt: (options.now ?? new Date()).toISOString(),
    mode: parts.mode,
    input: parts.input,
    files: parts.files,
    notices: targetNotices(groups),
    lab: parts.lab,
    groups,
    keepAlive: compareKeepAlive(groups),
    keepAliveReference: KEEP_ALIVE_REFERENCE,
    targetComparison: compareTargets(groups),
    functions: parts.functions,
    insights: parts.insights,
    tuning,
    malformed: parts.malformed.summary(),
    warnings: parts.warnings,
  };
}

// ---------------------------------------------------------------- results folder

interface SummaryRun {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  /** the phase's function memory setting (local runs) */
  readonly memoryMb?: number;
  readonly requests?: number;
  readonly errors?: number;
  readonly throughputPerSec?: number;
  readonly load?: LoadShape;
  readonly afterGap?: AfterGap;
  readonly cost?: GroupCost;
}

/** The $ per million requests of a summary row's cost block; undefined without one. */
function parseCost(v: unknown): GroupCost | undefined {
  if (!isRecord(v) || !isRecord(v.perMillion)) return undefined;
  const pm = v.perMillion;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  const [total, lambda, api, database] = [n(pm.total), n(pm.lambda), n(pm.api), n(pm.database)];
  if (total === undefined || lambda === undefined || api === undefined || database === undefined)
    return undefined;
  return {
    total,
    lambda,
    api,
    database,
    prices: typeof v.prices === 'string' ? v.prices : 'unnamed prices',
    databaseBasis: typeof v.databaseBasis === 'string' ? v.databaseBasis : null,
    unpriced: Array.isArray(v.unpriced) ? v.unpriced.filter((k): k is string => typeof k === 'string') : [],
    ...parseProvisionedIdle(v.provisionedIdle),
  };
}

function parseProvisionedIdle(v: unknown): Pick<GroupCost, 'provisionedIdle'> {
  if (!isRecord(v) || typeof v.concurrency !== 'number' || !(v.concurrency > 0)) return {};
  const perHour = typeof v.usdPerHour === 'number' && Number.isFinite(v.usdPerHour) ? v.usdPerHour : null;
  return {
    provisionedIdle: {
      concurrency: v.concurrency,
      usdPerHour: perHour,
      ...(perHour === null && typeof v.unpriced === 'string' ? { reason: v.unpriced } : {}),
    },
  };
}

/** mode, parallel and ratePerS of a summary row; undefined for rows written before they existed. */
function parseLoadShape(r: Record<string, unknown>): LoadShape | undefined {
  const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  if (r.mode !== 'open' && r.mode !== 'closed') return undefined;
  return { mode: r.mode, parallel: count(r.parallel), ratePerS: count(r.ratePerS) };
}

function parseAfterGap(v: unknown): AfterGap | undefined {
  if (!isRecord(v)) return undefined;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const gapS = n(v.gapS);
  const warmCalls = n(v.warmCalls);
  const fresh = n(v.firstCallsNewConnection);
  if (gapS === null || warmCalls === null || fresh === null) return undefined;
  return {
    gapS,
    warmCalls,
    firstCallsNewConnection: fresh,
    newConnectionDbMsP50: n(v.newConnectionDbMsP50),
    reusedDbMsP50: n(v.reusedDbMsP50),
  };
}

/** A phase npm run load recorded as failed (loadtest/load-phases.ts): no results, a reason. */
interface FailedPhase {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly reason: string;
}

function parseFailedPhases(v: unknown): FailedPhase[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((f: unknown): FailedPhase[] =>
    isRecord(f) &&
    typeof f.target === 'string' &&
    typeof f.keepAlive === 'string' &&
    typeof f.phase === 'string' &&
    typeof f.reason === 'string'
      ? [{ target: f.target, keepAlive: f.keepAlive, phase: f.phase, reason: f.reason }]
      : [],
  );
}

function parseSummary(
  json: unknown,
  path: string,
): { lab: Record<string, unknown> | null; runs: SummaryRun[]; failedPhases: FailedPhase[] } {
  if (!isRecord(json) || !Array.isArray(json.runs)) {
    throw new ReportInputError(`${path} is not a load summary: it needs a "runs" array`);
  }
  const runs = json.runs.map((r: unknown, i): SummaryRun => {
    if (
      !isRecord(r) ||
      typeof r.target !== 'string' ||
      typeof r.keepAlive !== 'string' ||
      typeof r.phase !== 'string'
    ) {
      throw new ReportInputError(`${path}: runs[${i}] needs string target, keepAlive and phase`);
    }
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
    return {
      target: r.target,
      keepAlive: r.keepAlive,
      phase: r.phase,
      memoryMb: num(r.memoryMb),
      requests: num(r.requests),
      errors: num(r.errors),
      throughputPerSec: num(r.throughputPerSec),
      load: parseLoadShape(r),
      afterGap: parseAfterGap(r.afterGap),
      cost: parseCost(r.cost),
    };
  });
  return {
    lab: isRecord(json.lab) ? json.lab : null,
    runs,
    failedPhases: parseFailedPhases(json.failedPhases),
  };
}

const ARTILLERY_FILE = /^artillery-([a-z0-9]+)-keepalive-([a-z]+)-([a-z]+)(?:-(\d+)mb)?\.json$/;

/** Builds the report of one `npm run load` results folder. */
export async function buildFromResultsDir(inDir: string, options: BuildOptions = {}): Promise<LabReport> {
  const dir = resolve(inDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ReportInputError(`--in ${inDir}: no such results folder`);
  }
  const summaryPath = join(dir, 'summary.json');
  if (!existsSync(summaryPath)) {
    throw new ReportInputError(`${summaryPath} not found: is ${inDir} the folder npm run load wrote?`);
  }
  const summary = parseSummary(readJson(summaryPath, 'summary'), summaryPath);
  const files = ['summary.json'];
  const malformed = new MalformedCollector();
  const warnings: string[] = [];
  const groups = new Groups();
  for (const f of summary.failedPhases) {
    warnings.push(
      `phase ${f.target} keep-alive ${f.keepAlive} ${f.phase} failed and has no results: ${f.reason}`,
    );
  }

  // A run that compared memory sizes has a group per size; one that ran one size keeps its plain ids.
  const sizes = new Set(summary.runs.flatMap((r) => (r.memoryMb === undefined ? [] : [r.memoryMb])));
  const memoryOf = (mb: number | undefined) => (sizes.size > 1 ? mb : undefined);
  for (const r of summary.runs) {
    const g = groups.get(r.target, r.keepAlive, r.phase, memoryOf(r.memoryMb));
    if (r.requests !== undefined && r.errors !== undefined && r.throughputPerSec !== undefined) {
      g.run = { requests: r.requests, errors: r.errors, throughputPerSec: r.throughputPerSec };
    }
    g.load = r.load;
    g.afterGap = r.afterGap;
    g.cost = r.cost;
  }

  for (const f of readdirSync(dir).sort()) {
    const m = ARTILLERY_FILE.exec(f);
    if (!m) continue;
    let report: ArtilleryReport;
    try {
      report = parseArtilleryReport(readJson(join(dir, f), 'Artillery report'));
    } catch (e) {
      if (e instanceof ReportInputError) throw e;
      throw new ReportInputError(`Artillery report ${join(dir, f)} does not fit: ${(e as Error).message}`);
    }
    groups.get(m[1], m[2], m[3], memoryOf(m[4] === undefined ? undefined : Number(m[4]))).artillery = report;
    files.push(f);
  }

  const timingsPath = join(dir, 'timings.jsonl');
  if (existsSync(timingsPath)) {
    files.push('timings.jsonl');
    for (const t of readTimings(timingsPath, malformed)) {
      const g = groups.get(t.target, t.variant, t.phase, memoryOf(t.memoryMb));
      if (t.clientMs !== null) g.clientMs.push(t.clientMs);
      if (t.timing) addHandlerSample(g, { status: t.status, ...t.timing });
    }
  } else warnings.push('no timings.jsonl: no database layer, and client times come from Artillery');

  let functions: FunctionStats[] = [];
  const logPath = join(dir, 'lambda-logs.log');
  if (existsSync(logPath)) {
    files.push('lambda-logs.log');
    const parsed = parseLogText(readFileSync(logPath, 'utf8'), 'lambda-logs.log', malformed);
    const variantsOf = (target: string, phase: string) => [
      ...new Set(
        summary.runs.filter((r) => r.target === target && r.phase === phase).map((r) => r.keepAlive),
      ),
    ];
    const groupOf = (source: string | undefined, memoryMb?: number) => {
      const key = source ? parseFunctionKey(source) : undefined;
      if (!key) return undefined;
      // A single-variant deployment has no -keepalive- suffix: the run's one variant is it.
      const only = variantsOf(key.target, key.operation);
      return groups.get(
        key.target,
        key.keepAlive ?? (only.length === 1 ? only[0] : 'default'),
        key.operation,
        memoryOf(memoryMb),
      );
    };
    for (const r of parsed.reports) groupOf(r.source, r.memorySizeMb)?.lines.addReport(r);
    // An INIT_REPORT line names no memory size: with several sizes it belongs to no one group.
    if (sizes.size <= 1) for (const i of parsed.inits) groupOf(i.source)?.lines.addInit(i);
    functions = collectFunctions(
      parsed.reports,
      parsed.inits,
      (s) => functionNameOf(s, 'lambda-logs.log'),
      warnings,
    );
  }

  return assembleReport(
    {
      mode: 'results',
      input: `load results in ${dir}`,
      files,
      lab: summary.lab,
      groups,
      functions,
      insights: null,
      malformed,
      warnings,
      // Only what this run wrote: results/tuning holds every `npm run tune`, cloud and local alike.
      tuningDirs: [join(dir, 'tuning')],
    },
    options,
  );
}

// ---------------------------------------------------------------- a log file

/**
 * `aws logs tail` prints `<ISO time with offset> <log stream> <message>`; the parser reads
 * a leading `...Z` timestamp only, so the offset form is dropped here to let it find the stream.
 */
function normalizeLogLine(line: string): string {
  return line.replace(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?[+-]\d{2}:?\d{2}\s+/, '');
}

/** The run group of a line whose source is a lab function key (local `[key]` prefixes, or mapped log groups). */
function keyedGroupOf(
  keyOf: (source: string | undefined) => string | undefined,
  groups: Groups,
): (source: string | undefined) => GroupInputs | undefined {
  return (source) => {
    const key = keyOf(source);
    const parts = key ? parseFunctionKey(key) : undefined;
    return parts ? groups.get(parts.target, parts.keepAlive ?? 'default', parts.operation) : undefined;
  };
}

function groupsFromKeyedReports(
  reports: readonly ReportRecord[],
  inits: readonly InitRecord[],
  keyOf: (source: string | undefined) => string | undefined,
  groups: Groups,
): void {
  const groupOf = keyedGroupOf(keyOf, groups);
  for (const r of reports) groupOf(r.source)?.lines.addReport(r);
  for (const i of inits) groupOf(i.source)?.lines.addInit(i);
}

/**
 * Builds the report of a file of Lambda log lines (CloudWatch export, `aws logs tail`,
 * lambda-logs.log). The file is streamed line by line into histograms and running sums:
 * an export of millions of REPORT lines is read in bounded memory.
 */
export async function buildFromLogFile(path: string, options: BuildOptions = {}): Promise<LabReport> {
  const file = resolve(path);
  if (!existsSync(file) || !statSync(file).isFile())
    throw new ReportInputError(`--logs ${path}: no such file`);
  const name = basename(file);
  const malformed = new MalformedCollector();
  const warnings: string[] = [];
  const functions = new FunctionCollector((s) => functionNameOf(s, name));
  const groups = new Groups();
  const groupOf = keyedGroupOf((s) => s, groups);
  let lineNo = 0;
  let reportLines = 0;
  let initLines = 0;
  let otherLines = 0;
  try {
    const lines = createInterface({
      input: createReadStream(file, 'utf8'),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const raw of lines) {
      lineNo += 1;
      const parsed = parseLambdaLine(normalizeLogLine(raw));
      if (parsed.kind === 'report') {
        reportLines += 1;
        functions.addReport(parsed.record);
        groupOf(parsed.record.source)?.lines.addReport(parsed.record);
      } else if (parsed.kind === 'init') {
        initLines += 1;
        functions.addInit(parsed.record);
        groupOf(parsed.record.source)?.lines.addInit(parsed.record);
      } else if (parsed.kind === 'malformed') malformed.add(name, lineNo, parsed.reason, raw);
      else if (parsed.kind === 'other') otherLines += 1;
      if (lineNo % PROGRESS_EVERY_LINES === 0) {
        options.progress?.(
          `${name}: ${lineNo.toLocaleString('en-US')} lines read, ${reportLines.toLocaleString('en-US')} REPORT`,
        );
      }
    }
  } catch (e) {
    throw new ReportInputError(`cannot read --logs ${path}: ${(e as Error).message}`);
  }
  if (reportLines === 0) warnings.push(`no REPORT line in ${name}`);
  return assembleReport(
    {
      mode: 'logs',
      input: `Lambda log lines in ${file} (${reportLines} REPORT, ${initLines} INIT_REPORT, ${otherLines} other lines)`,
      files: [name],
      lab: null,
      groups,
      functions: functions.stats(warnings),
      insights: null,
      malformed,
      warnings,
      tuningDirs: [DEFAULT_TUNING_DIR],
    },
    options,
  );
}

// ---------------------------------------------------------------- CloudWatch

const SINCE_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `30m`, `2h`, `1d`, `90s`, `1w`, or an ISO time; returns the window start in epoch ms. */
export function parseSince(value: string, nowMs: number): number {
  const v = value.trim();
  const rel = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)$/.exec(v);
  let since: number | undefined;
  if (rel) since = nowMs - Number(rel[1]) * SINCE_UNITS_MS[rel[2]];
  else if (/^\d{4}-\d{2}-\d{2}/.test(v) && Number.isFinite(Date.parse(v))) since = Date.parse(v);
  if (since === undefined || !(since < nowMs)) {
    throw new ReportInputError(
      `--since must be a duration like 30m, 2h or 1d, or an ISO time in the past, got ${JSON.stringify(value)}`,
    );
  }
  return since;
}

export interface CloudWatchInput {
  readonly aws: AwsOptions;
  readonly sinceMs: number;
  /** @default now */
  readonly untilMs?: number;
  readonly cfn: CloudFormationClient;
  readonly logs: CloudWatchLogsClient;
  readonly onProgress?: (query: string, progress: InsightsProgress) => void;
  /** Injected in tests. */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly pollMs?: number;
}

/**
 * Builds the report from the deployed functions' log groups: the REPORT lines and the
 * handlers' timing lines (fetchLabLogs), plus the article's Insights statistics and a
 * cold/warm split computed by Insights itself, shown beside the report's own numbers.
 */
export async function buildFromCloudWatch(
  input: CloudWatchInput,
  options: BuildOptions = {},
): Promise<LabReport> {
  const { readLabOutputs } = await import('../aws/stack-outputs');
  const { fetchLabLogs, runInsights, logGroupOf, REPORT_STATS_QUERY, COLD_WARM_QUERY, MAX_INSIGHTS_ROWS } =
    await import('../aws/logs-insights');
  const outputs = await readLabOutputs(input.cfn, input.aws.stackPrefix);
  const keyByGroup = new Map(outputs.functions.map((f) => [f.logGroup, f.key]));
  const common = {
    logGroups: outputs.functions.map((f) => f.logGroup),
    sinceMs: input.sinceMs,
    untilMs: input.untilMs ?? (input.now ?? Date.now)(),
    ...(input.now ? { now: input.now } : {}),
    ...(input.sleep ? { sleep: input.sleep } : {}),
    ...(input.pollMs !== undefined ? { pollMs: input.pollMs } : {}),
  };
  const progress = (query: string) =>
    input.onProgress ? (p: InsightsProgress) => input.onProgress?.(query, p) : undefined;
  const [labLogs, statsRows, coldWarmRows] = await Promise.all([
    fetchLabLogs(input.logs, { ...common, onProgress: input.onProgress }),
    runInsights(input.logs, { ...common, query: REPORT_STATS_QUERY, onProgress: progress('stats') }),
    runInsights(input.logs, { ...common, query: COLD_WARM_QUERY, onProgress: progress('cold/warm') }),
  ]);

  const malformed = new MalformedCollector();
  const warnings: string[] = [];
  if (labLogs.truncated) {
    warnings.push(
      `a Logs Insights query hit its ${MAX_INSIGHTS_ROWS.toLocaleString('en-US')}-row cap: lines past it are missing, narrow --since to see every line`,
    );
  }
  for (let i = 0; i < labLogs.unreadableTimings; i++) {
    malformed.add('timing lines', i + 1, 'unreadable timing line', '(Logs Insights row)');
  }
  const parsed = parseLogText(labLogs.reportLines.join('\n'), 'REPORT lines', malformed);
  const keyOf = (source: string | undefined) => (source ? keyByGroup.get(source) : undefined);
  const groups = new Groups();
  groupsFromKeyedReports(parsed.reports, parsed.inits, keyOf, groups);
  for (const t of labLogs.timings) {
    const parts = parseFunctionKey(t.fn);
    if (!parts) continue;
    addHandlerSample(groups.get(parts.target, parts.keepAlive ?? 'default', parts.operation), t);
  }
  const functions = collectFunctions(
    parsed.reports,
    parsed.inits,
    (s) => {
      const key = keyOf(s);
      return key ? { name: key, nameFrom: 'function' } : functionNameOf(s, 'CloudWatch');
    },
    warnings,
  );
  const withFunction = (rows: readonly Record<string, string>[]) =>
    rows.map(({ '@log': log, ...rest }) => {
      const group = logGroupOf(log);
      return { function: keyByGroup.get(group) ?? group, ...rest };
    });
  const from = new Date(input.sinceMs).toISOString();
  return assembleReport(
    {
      mode: 'cloudwatch',
      input: `CloudWatch Logs of ${outputs.functions.length} functions of stack ${input.aws.stackPrefix}-Api in ${input.aws.region} since ${from}`,
      files: common.logGroups,
      lab: {
        target: 'aws',
        region: input.aws.region,
        stackPrefix: input.aws.stackPrefix,
        apiUrl: outputs.apiUrl,
        since: from,
      },
      groups,
      functions,
      insights: {
        stats: { query: REPORT_STATS_QUERY, rows: withFunction(statsRows) },
        coldWarm: { query: COLD_WARM_QUERY, rows: withFunction(coldWarmRows) },
      },
      malformed,
      warnings,
      tuningDirs: [DEFAULT_TUNING_DIR],
    },
    options,
  );
}
