/**
 * The report of one `npm run load` results folder. Each file has its own reader: summary.json
 * (runs/summary-reader.ts, the one schema: another version is refused), Artillery's JSON
 * (runs/results.ts), timings.jsonl and lambda-logs.log (report/build/inputs.ts, malformed lines
 * counted). This module only routes what they read into the report's groups.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../../core/errors';
import { parseFunctionKey } from '../../core/lab-functions';
import { METRIC } from '../../core/lab-metrics.mjs';
import { type ArtilleryReport, parseArtilleryReport } from '../../runs/results';
import { phaseReports, rebuildSummaryFromArtillery } from '../../runs/summary-from-artillery';
import { readSummary } from '../../runs/summary-reader';
import type { LoadSummary, RunCost } from '../../runs/summary-schema';
import { assembleReport } from '../build/assemble';
import { collectFunctions, functionNameOf } from '../build/functions';
import { addHandlerSample, Groups } from '../build/groups';
import {
  type BuildOptions,
  MalformedCollector,
  parseLogText,
  ReportInputError,
  readJson,
  readTimings,
} from '../build/inputs';
import type { FunctionStats, GroupCost, LabReport } from '../report-model';

const ARTILLERY_FILE = /^artillery-([a-z0-9]+)-keepalive-([a-z]+)-([a-z0-9]+)(?:-(\d+)mb)?\.json$/;

/** The $ per million requests of a row's cost block, as the report shows it. */
function groupCost(c: RunCost | null | undefined): GroupCost | undefined {
  if (!c) return undefined;
  const idle = c.provisionedIdle;
  return {
    ...c.perMillion,
    prices: c.prices,
    databaseBasis: c.databaseBasis,
    unpriced: c.unpriced,
    databaseUnits: c.components
      .filter((x) => x.group === 'database')
      .map((x) => ({
        key: x.key,
        unit: x.unit,
        basis: x.basis,
        usd: x.usd,
        per: x.per,
        source: x.source,
        ...(x.unverified === undefined ? {} : { reason: x.unverified }),
      })),
    ...(idle && idle.concurrency > 0
      ? {
          provisionedIdle: {
            concurrency: idle.concurrency,
            usdPerHour: idle.usdPerHour,
            ...(idle.usdPerHour === null && idle.unpriced !== undefined ? { reason: idle.unpriced } : {}),
          },
        }
      : {}),
  };
}

/** summary.json through the one reader; its refusal (another version, a field that does not fit) is the report's. */
function summaryOf(path: string): LoadSummary {
  try {
    return readSummary(path);
  } catch (e) {
    if (e instanceof UsageError) throw new ReportInputError(e.message);
    throw e;
  }
}

/** Builds the report of one `npm run load` results folder. */
export async function buildFromResultsDir(inDir: string, options: BuildOptions = {}): Promise<LabReport> {
  const dir = resolve(inDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ReportInputError(`--in ${inDir}: no such results folder`);
  }
  const summaryPath = join(dir, 'summary.json');
  const warnings: string[] = [];
  if (!existsSync(summaryPath)) {
    // A distributed run leaves Artillery's reports only: the summary is built from them first.
    if (phaseReports(dir).length === 0) {
      throw new ReportInputError(
        `${summaryPath} not found and no artillery-*.json beside it: is ${inDir} the folder npm run load wrote?`,
      );
    }
    let rebuilt: ReturnType<typeof rebuildSummaryFromArtillery>;
    try {
      rebuilt = rebuildSummaryFromArtillery(dir);
    } catch (e) {
      throw new ReportInputError(
        `summary.json could not be rebuilt from Artillery's reports: ${(e as Error).message}`,
      );
    }
    warnings.push(
      `summary.json written from Artillery's reports (${rebuilt.rows.length} phases): no local files, so no Init Duration, function Duration or cost`,
      ...rebuilt.warnings,
    );
  }
  const summary = summaryOf(summaryPath);
  const files = ['summary.json'];
  const malformed = new MalformedCollector();
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
    g.run = { requests: r.requests, errors: r.errors, throughputPerSec: r.throughputPerSec };
    g.load = { mode: r.mode, parallel: r.parallel, ratePerS: r.ratePerS };
    g.afterGap = r.afterGap;
    g.cost = groupCost(r.cost);
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
  } else {
    const sketched = groups
      .all()
      .some((g) => (g.artillery?.aggregate.summaries[METRIC.dbUs]?.count ?? 0) > 0);
    warnings.push(
      sketched
        ? "no timings.jsonl: client and database times come from Artillery's summaries"
        : 'no timings.jsonl: no database layer, and client times come from Artillery',
    );
  }

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
      // What npm run load printed at the end of the run, so the report and the terminal agree.
      runComparison: summary.comparison,
    },
    options,
  );
}
