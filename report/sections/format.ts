/** Cells and helpers every report section formats its figures with. */
import { targetLabel } from '../../core/lab-functions';
import type { Block, Plot, PlotSection } from '../page';
import type { GroupCost, GroupReport, LayerStats, RequestCount } from '../report-model';

export const DASH = '–';

/** Milliseconds with three significant decimals at low values, fewer where they are noise. */
export function ms(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  if (v >= 100) return v.toFixed(1);
  if (v >= 10) return v.toFixed(2);
  return v.toFixed(3);
}

/** $ per million requests: cents below $10, fewer digits above. */
export function usdPerMillion(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return DASH;
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** The database's $ per million: 'unpriced' for an unverified price, 'n/a' where no units were recorded. */
export function dbCostCell(c: GroupCost): string {
  if (c.databaseBasis === null) return 'n/a';
  const cell = usdPerMillion(c.database);
  return c.unpriced.length > 0 ? `${cell} + unpriced` : `${cell} (${c.databaseBasis})`;
}

export const costCells = (c: GroupCost | null | undefined): string[] =>
  c
    ? [usdPerMillion(c.total), usdPerMillion(c.lambda), usdPerMillion(c.api), dbCostCell(c)]
    : [DASH, DASH, DASH, DASH];

export const COST_COLUMNS = [
  { title: '$ / M requests', numeric: true },
  { title: 'Lambda $/M', numeric: true },
  { title: 'API $/M', numeric: true },
  { title: 'Database $/M' },
] as const;

export const int = (v: number | null | undefined) => (v === null || v === undefined ? DASH : String(v));
export const ratio = (v: number) => `${v.toFixed(2)}x`;
export const percent = (v: number) => `${(v * 100).toFixed(1)} %`;
export const rate = (v: number | null) => (v === null ? DASH : v.toFixed(2));

export function usd(v: number | null | undefined): string {
  if (v === null || v === undefined) return DASH;
  if (v === 0) return '$0';
  return v >= 0.01 ? `$${v.toFixed(4)}` : `$${v.toPrecision(4)}`;
}

/** Insights returns numbers as strings; show them rounded, leave names alone. */
export const insightsCell = (v: string | undefined) =>
  v === undefined ? DASH : /^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(v) ? ms(Number(v)) : v;

/** Requests or commands per database call, `p50 / max`. */
export const requests = (r: RequestCount | null) => (r ? `${r.p50} / ${r.max}` : DASH);

export const layerOf = (g: GroupReport, layer: LayerStats['layer']) =>
  g.layers.find((l) => l.layer === layer)?.ladder;

/** `off`, or `off, 128 MB` when the run compared memory sizes. */
export const variantCell = (g: GroupReport): string =>
  g.memoryMb === null ? g.keepAlive : `${g.keepAlive}, ${g.memoryMb} MB`;

export const MEMORY_KEYS = new Set(['memoryModel', 'memory', 'functions']);

/**
 * What the run modeled of Lambda's memory setting, from summary.json: the lab's own line, the
 * memory sizes each function ran at, and a notice that qualifies every figure when the CPU
 * share and memory ceiling were not applied.
 */
export function memoryBlocks(lab: Readonly<Record<string, unknown>>): Block[] {
  const blocks: Block[] = [];
  const memory = lab.memory as { modeled?: unknown } | undefined;
  if (typeof lab.memoryModel === 'string') {
    blocks.push(
      memory?.modeled === false
        ? { kind: 'notice', text: `${lab.memoryModel} (memory not modeled)` }
        : { kind: 'text', text: `${lab.memoryModel}.` },
    );
  }
  const functions = lab.functions;
  if (functions && typeof functions === 'object') {
    const sizes = new Set<string>();
    for (const f of Object.values(functions as Record<string, { memoryMb?: unknown }>)) {
      if (Array.isArray(f?.memoryMb)) sizes.add(f.memoryMb.join(', '));
    }
    if (sizes.size > 0)
      blocks.push({ kind: 'text', text: `Function memory (MB): ${[...sizes].join('; ')}.` });
  }
  return blocks;
}

/**
 * The run header's network line: the profile and, per target, its round trip and service
 * time, from summary.json's `lab` block. Null for a run that recorded none (cloud, older runs).
 */
export function networkLine(lab: Readonly<Record<string, unknown>>): string | null {
  if (typeof lab.profile !== 'string') return null;
  const network = typeof lab.network === 'object' && lab.network !== null ? lab.network : {};
  const links = Object.entries(network as Record<string, unknown>).map(([target, v]) => {
    const link = (typeof v === 'object' && v !== null ? v : {}) as {
      rttMs?: unknown;
      serviceTime?: { p50Ms?: unknown; p99Ms?: unknown } | null;
    };
    const label = targetLabel(target);
    const st = link.serviceTime;
    const service = st
      ? `service time p50 ${String(st.p50Ms)} / p99 ${String(st.p99Ms)} ms (seeded log-normal)`
      : "service time the local engine's own";
    return `${label} round trip ${String(link.rttMs)} ms, ${service}`;
  });
  const seed = typeof lab.seed === 'number' ? ` (seed ${lab.seed})` : '';
  return `Network profile ${lab.profile}${seed}${links.length > 0 ? `: ${links.join('; ')}` : ''}.`;
}

export function plotsOf(plots: readonly Plot[], section: PlotSection): Block[] {
  return plots.filter((p) => p.section === section).map((plot) => ({ kind: 'plot', plot }));
}
