/**
 * The answer a run ends with: which target is fastest for reads (get) and for writes (create),
 * and how many times slower each other target is, by client p50 (the latency Artillery saw:
 * API, function and database). Each target is taken at its faster keep-alive variant, and the
 * variant is named. Pure: rows in, a comparison out; summary.json keeps it as `comparison`
 * (its types come from summary.json's schema, runs/summary-schema.ts).
 */
import { targetLabel } from '../core/lab-functions';
import type { ComparisonCell, OperationVerdict, TargetComparison } from './summary-schema';

export type { ComparisonCell, OperationVerdict, Ranked, TargetComparison } from './summary-schema';

/** What the comparison reads of a row (runs/results.ts LabRow). */
export interface ComparedRow {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly requests: number;
  readonly errors: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number } | null;
  readonly dbMs: { readonly p50: number; readonly p99: number } | null;
}

export const READ_PHASE = 'get';
export const WRITE_PHASE = 'create';

/**
 * The comparison of a run's rows, or null when it has nothing to compare: no get or create
 * phase with latencies, or several rows per target x variant x phase (a run over memory sizes
 * or parallel levels compares those axes instead).
 */
export function compareTargets(rows: readonly ComparedRow[]): TargetComparison | null {
  const relevant = rows.filter((r) => r.phase === READ_PHASE || r.phase === WRITE_PHASE);
  const keys = relevant.map((r) => `${r.target}\u0000${r.keepAlive}\u0000${r.phase}`);
  if (new Set(keys).size !== keys.length) return null;
  const cells: ComparisonCell[] = relevant.flatMap((r) =>
    r.latencyMs && r.requests > r.errors
      ? [
          {
            target: r.target,
            keepAlive: r.keepAlive,
            phase: r.phase,
            clientP50Ms: r.latencyMs.p50,
            clientP99Ms: r.latencyMs.p99,
            dbP50Ms: r.dbMs?.p50 ?? null,
          },
        ]
      : [],
  );
  if (cells.length === 0) return null;
  return {
    statistic: 'client p50',
    cells,
    reads: verdict(cells, READ_PHASE),
    writes: verdict(cells, WRITE_PHASE),
  };
}

function verdict(cells: readonly ComparisonCell[], phase: string): OperationVerdict | null {
  const best = new Map<string, ComparisonCell>();
  for (const c of cells) {
    if (c.phase !== phase) continue;
    const prev = best.get(c.target);
    if (!prev || c.clientP50Ms < prev.clientP50Ms) best.set(c.target, c);
  }
  if (best.size === 0) return null;
  const sorted = [...best.values()].sort((a, b) => a.clientP50Ms - b.clientP50Ms);
  const fastest = sorted[0].clientP50Ms;
  return {
    phase,
    ranking: sorted.map((c) => ({
      target: c.target,
      keepAlive: c.keepAlive,
      clientP50Ms: c.clientP50Ms,
      // A 0 ms p50 cannot divide: every target then reads as 1x of it.
      ratio: fastest > 0 ? c.clientP50Ms / fastest : 1,
    })),
  };
}

const ms = (n: number | null) => (n === null ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(1));

/** `Reads (get): fastest Redis (keep-alive on) 6.00 ms client p50; DynamoDB 3.0x, ...` */
export function verdictLine(label: string, v: OperationVerdict): string {
  const [first, ...rest] = v.ranking;
  const others = rest.map(
    (r) => `${targetLabel(r.target)} ${r.ratio.toFixed(1)}x (keep-alive ${r.keepAlive})`,
  );
  return `${label} (${v.phase}): fastest ${targetLabel(first.target)} (keep-alive ${first.keepAlive}), ${ms(first.clientP50Ms)} ms client p50${others.length > 0 ? `; ${others.join(', ')} of it` : '; no other target ran'}.`;
}

/** The verdict lines: reads, then writes. */
export function comparisonLines(c: TargetComparison): string[] {
  return [
    ...(c.reads ? [verdictLine('Reads', c.reads)] : []),
    ...(c.writes ? [verdictLine('Writes', c.writes)] : []),
  ];
}

/**
 * One table, a line per target x keep-alive: client p50 and p99 of create and get, the
 * database's p50 of get, and each get and create p50 as a multiple of the fastest target's.
 */
export function formatComparisonTable(c: TargetComparison): string {
  const pairs = [...new Set(c.cells.map((x) => `${x.target}\u0000${x.keepAlive}`))];
  const cell = (target: string, keepAlive: string, phase: string) =>
    c.cells.find((x) => x.target === target && x.keepAlive === keepAlive && x.phase === phase);
  const times = (v: OperationVerdict | null, x: ComparisonCell | undefined) => {
    const fastest = v?.ranking[0]?.clientP50Ms;
    return x && fastest ? `${(x.clientP50Ms / fastest).toFixed(1)}x` : '-';
  };
  const header = [
    'target',
    'keep-alive',
    'get p50',
    'get p99',
    'get db p50',
    'get vs fastest',
    'create p50',
    'create p99',
    'create vs fastest',
  ];
  const body = pairs.map((pair) => {
    const [target, keepAlive] = pair.split('\u0000');
    const get = cell(target, keepAlive, READ_PHASE);
    const create = cell(target, keepAlive, WRITE_PHASE);
    return [
      targetLabel(target),
      keepAlive,
      ms(get?.clientP50Ms ?? null),
      ms(get?.clientP99Ms ?? null),
      ms(get?.dbP50Ms ?? null),
      times(c.reads, get),
      ms(create?.clientP50Ms ?? null),
      ms(create?.clientP99Ms ?? null),
      times(c.writes, create),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((x, i) => (i < 2 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
