/** The terminal table printed at the end of `npm run load`. */
import { targetLabel } from '../core/lab-functions';
import type { LabRow } from '../runs/results';

const ms = (n: number | null | undefined) =>
  n === null || n === undefined ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1);
const pct = (n: number | null) => (n === null ? '-' : `${Math.round(n * 100)}%`);

/**
 * One row per phase. `memory` is the function memory setting (with the vCPUs it gave, or
 * "not modeled"), `fn p50` the warm invocations' REPORT Duration.
 */
export function formatSummaryTable(rows: readonly LabRow[]): string {
  const header = [
    'target',
    'keep-alive',
    'memory',
    'phase',
    'requests',
    'errors',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'max ms',
    'fn p50',
    'db p50',
    'db p99',
    'db req',
    'new conn',
    'cold',
    'init p50',
    '$/M',
    'lambda',
    'api',
    'db',
  ];
  const body = rows.map((r) => [
    targetLabel(r.target),
    r.keepAlive,
    memoryCell(r),
    r.phase,
    String(r.requests),
    String(r.errors),
    r.throughputPerSec.toFixed(1),
    ms(r.latencyMs?.p50),
    ms(r.latencyMs?.p95),
    ms(r.latencyMs?.p99),
    ms(r.latencyMs?.max),
    ms(r.functionMs?.p50),
    ms(r.dbMs?.p50),
    ms(r.dbMs?.p99),
    r.dbRequests ? String(r.dbRequests.p50) : '-',
    pct(r.newConnectionShare),
    String(r.coldStarts),
    ms(r.initMsP50),
    ...costCells(r),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

/** `128 MB 0.07 vCPU`, `128 MB not modeled`, or `-` for a run that set none (a deployed stack). */
function memoryCell(r: LabRow): string {
  if (r.memoryMb === undefined) return '-';
  if (!r.cpu || r.cpu.vcpus === null) return `${r.memoryMb} MB not modeled`;
  return `${r.memoryMb} MB ${r.cpu.vcpus.toFixed(2)} vCPU`;
}

/** $ per million requests in total and by Lambda, API and database; '-' without a cost block. */
function costCells(r: LabRow): string[] {
  const c = r.cost;
  if (!c) return ['-', '-', '-', '-'];
  const usd = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  // An unpriced database component (an unverified price) is shown as such, never as $0, and a
  // target whose client records no billed units (QLDB) says so.
  const hasDb = c.components.some((x) => x.group === 'database');
  const db = !hasDb
    ? 'n/a'
    : c.unpriced.some((k) => c.components.find((x) => x.key === k)?.group === 'database')
      ? 'unpriced'
      : usd(c.perMillion.database);
  return [usd(c.perMillion.total), usd(c.perMillion.lambda), usd(c.perMillion.api), db];
}
