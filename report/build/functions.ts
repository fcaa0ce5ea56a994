/**
 * Per-function statistics from REPORT and INIT_REPORT lines, whatever the source: a function
 * is named by its log group, log stream, `[key]` prefix, or the file the lines came from.
 */
import type { InitRecord, ReportRecord } from '../../runs/lambda-log-parser';
import { ReportAccumulator } from '../../runs/report-accumulator';
import type { FunctionStats } from '../report-model';
import { distributionOf, durationSummary, initSummary } from './distribution';

export type NameOf = (source: string | undefined) => { name: string; nameFrom: FunctionStats['nameFrom'] };

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
export class FunctionCollector {
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

export function collectFunctions(
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
