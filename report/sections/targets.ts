/** The targets side by side per phase, and each phase's cost beside its latency. */
import { targetLabel } from '../../core/lab-functions';
import { TARGET_REFERENCE } from '../article-figures';
import type { Block, Plot, Section } from '../page';
import { TARGET_PLOT_ID } from '../plot-style';
import type {
  DatabaseUnitCost,
  GroupReport,
  LabReport,
  P50P99,
  TargetComparison,
  TargetRow,
} from '../report-model';
import { COST_COLUMNS, costCells, DASH, int, ms, plotsOf } from './format';

const pair = (v: P50P99 | null) => [ms(v?.p50), ms(v?.p99)];

/** TARGET_INFO's label, or the key of a target the lab does not know. */
const labelOf = targetLabel;

/** `<label> 3.1x <baseline's label>`; the baseline target's row says so. */
function ratioCell(r: TargetRow, c: TargetComparison): string {
  if (r.target === c.baseline) return 'baseline';
  return r.dbRatioToBaseline === null
    ? DASH
    : `${r.label} ${r.dbRatioToBaseline.toFixed(1)}x ${labelOf(c.baseline)}`;
}

export function targets(report: LabReport, plots: readonly Plot[]): Section | null {
  if (report.targetComparison.length === 0) return null;
  const blocks: Block[] = [
    {
      kind: 'text',
      text:
        'The targets side by side, per phase and keep-alive variant: p50 and p99 in ms at each layer, the requests or ' +
        'protocol commands one database call sent (p50), and the database p50 as a multiple of the baseline ' +
        'target’s (the articles’ reference, or where it did not run the first target that did). ' +
        `For reference, ${TARGET_REFERENCE.source}.`,
    },
  ];
  const withCost = report.targetComparison.some((c) => c.rows.some((r) => r.cost));
  for (const c of report.targetComparison) {
    blocks.push({
      kind: 'heading',
      text: `${c.phase}, keep-alive ${c.keepAlive}${c.memoryMb === undefined ? '' : `, ${c.memoryMb} MB`}`,
    });
    blocks.push({
      kind: 'table',
      columns: [
        { title: 'Target' },
        { title: 'Client p50 (ms)', numeric: true },
        { title: 'Client p99', numeric: true },
        { title: 'Function p50 (ms)', numeric: true },
        { title: 'Function p99', numeric: true },
        { title: 'DB p50 (ms)', numeric: true },
        { title: 'DB p99', numeric: true },
        { title: 'DB requests/call p50', numeric: true },
        { title: `DB p50 vs ${labelOf(c.baseline)}` },
        // Cost columns where the run recorded costs (summaries before it did have none).
        ...(withCost ? COST_COLUMNS : []),
        { title: 'Article' },
      ],
      rows: c.rows.map((r) => [
        r.label,
        ...pair(r.clientMs),
        ...pair(r.functionMs),
        ...pair(r.dbMs),
        int(r.dbRequestsP50),
        ratioCell(r, c),
        ...(withCost ? costCells(r.cost) : []),
        r.article ?? DASH,
      ]),
    });
  }
  const plot = plots.find((p) => p.id === TARGET_PLOT_ID);
  if (plot) blocks.push({ kind: 'plot', plot });
  return { id: 'targets', title: 'Target comparison', blocks };
}

/** Every phase's latency beside its cost, and the latency-versus-cost chart (runs/run-cost.ts). */
export function cost(report: LabReport, plots: readonly Plot[]): Section | null {
  const priced = report.groups.filter((g) => g.cost);
  if (priced.length === 0) return null;
  const files = [...new Set(priced.map((g) => g.cost?.prices))].join('; ');
  const client = (g: GroupReport) => g.layers.find((l) => l.layer === 'client')?.ladder;
  return {
    id: 'cost',
    title: 'Cost beside latency',
    blocks: [
      {
        kind: 'text',
        text:
          `Dollars per million requests at ${files}: Lambda is the request charge plus GB-seconds of each REPORT ` +
          "line's Billed Duration (init included, as Lambda bills it since 2025-08-01) on arm64; API is one REST API " +
          'call per request; database is what each response recorded in its target’s own units (the table after ' +
          'this one): measured where the service returns them, computed by the service’s documented rules, or ' +
          'modeled. Free tiers, storage and fixed plans are not in these figures; the price files list them on ' +
          'lines of their own.',
      },
      {
        kind: 'table',
        columns: [
          { title: 'Run' },
          { title: 'Client p50 (ms)', numeric: true },
          { title: 'Client p99', numeric: true },
          ...COST_COLUMNS,
        ],
        rows: priced.map((g) => [g.label, ms(client(g)?.p50), ms(client(g)?.p99), ...costCells(g.cost)]),
      },
      ...databaseUnitBlocks(priced),
      ...provisionedIdleBlocks(priced),
      ...plotsOf(plots, 'cost'),
    ],
  };
}

/** Each database unit the runs billed, once: its price and source as the runs recorded them. */
function databaseUnitBlocks(groups: readonly GroupReport[]): Block[] {
  const units = new Map<string, DatabaseUnitCost>();
  for (const g of groups)
    for (const u of g.cost?.databaseUnits ?? []) if (!units.has(u.key)) units.set(u.key, u);
  if (units.size === 0) return [];
  return [
    {
      kind: 'table',
      columns: [
        { title: 'Database unit' },
        { title: 'What' },
        { title: 'Basis' },
        { title: 'Price' },
        { title: 'Source' },
      ],
      rows: [...units.values()].map((u) => [
        u.key,
        u.unit,
        u.basis,
        u.usd === null
          ? `unknown (${u.reason ?? 'no price'})`
          : `$${u.usd} per ${u.per.toLocaleString('en-US')}`,
        u.source,
      ]),
    },
  ];
}

/** Provisioned concurrency is billed per hour while configured, so it is a line of its own. */
function provisionedIdleBlocks(groups: readonly GroupReport[]): Block[] {
  const lines = groups.flatMap((g) => {
    const p = g.cost?.provisionedIdle;
    if (!p) return [];
    const price =
      p.usdPerHour === null
        ? `unpriced (${p.reason ?? 'no verified price'})`
        : `$${p.usdPerHour.toFixed(4)} per hour`;
    return [`${g.label}: provisioned concurrency ${p.concurrency}, ${price}`];
  });
  if (lines.length === 0) return [];
  return [
    {
      kind: 'text',
      text:
        'Provisioned concurrency is billed while configured, requests or not, so it is not in the $ per million above: ' +
        `${lines.join('; ')}.`,
    },
  ];
}
