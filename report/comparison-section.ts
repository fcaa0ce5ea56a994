/**
 * The report's first section: the run's answer across targets x keep-alive (runs/comparison.ts,
 * the same comparison `npm run load` prints at the end of the run). A chart with client p50 and
 * p99 side by side and the database's p50 beside them, one bar group per target x keep-alive
 * and one panel per operation; the same figures as a table, which report.md carries too.
 */
import { targetLabel } from '../core/lab-functions';
import {
  type ComparisonCell,
  comparisonLines,
  type OperationVerdict,
  READ_PHASE,
  WRITE_PHASE,
} from '../runs/comparison';
import type { Block, Column, Plot, PlotSpec, Section } from './page';
import { CATEGORY_AXIS, CONFIG } from './plot-style';
import type { LabReport } from './report-model';

/** The id of the comparison chart. */
export const COMPARISON_PLOT_ID = 'run-comparison';

const MEASURES = ['client p50', 'client p99', 'database p50'] as const;
const MEASURE_COLORS = ['#1f77b4', '#9ecae1', '#ff7f0e'];
const DASH = '–';

const phaseTitle = (phase: string) =>
  phase === READ_PHASE ? `reads (${phase})` : phase === WRITE_PHASE ? `writes (${phase})` : phase;
const rowLabel = (c: Pick<ComparisonCell, 'target' | 'keepAlive'>) =>
  `${targetLabel(c.target)}, keep-alive ${c.keepAlive}`;
const fixed = (v: number | null | undefined) =>
  v === null || v === undefined ? DASH : v < 10 ? v.toFixed(2) : v.toFixed(1);

/** The operations compared, reads first. */
function phasesOf(cells: readonly ComparisonCell[]): string[] {
  const order = [READ_PHASE, WRITE_PHASE];
  return [...new Set(cells.map((c) => c.phase))].sort(
    (a, b) => ((order.indexOf(a) + 3) % 3) - ((order.indexOf(b) + 3) % 3) || a.localeCompare(b),
  );
}

/** Target x keep-alive pairs in the order the run had them. */
function pairsOf(cells: readonly ComparisonCell[]): ComparisonCell[] {
  const seen = new Map<string, ComparisonCell>();
  for (const c of cells) if (!seen.has(rowLabel(c))) seen.set(rowLabel(c), c);
  return [...seen.values()];
}

export function comparisonSpec(report: LabReport): PlotSpec[] {
  const c = report.runComparison;
  if (!c || c.cells.length === 0) return [];
  const rows = pairsOf(c.cells).map(rowLabel);
  const values = c.cells.flatMap((cell) =>
    [cell.clientP50Ms, cell.clientP99Ms, cell.dbP50Ms].flatMap((ms, i) =>
      ms === null
        ? []
        : [{ phase: phaseTitle(cell.phase), run: rowLabel(cell), measure: MEASURES[i], ms, text: fixed(ms) }],
    ),
  );
  const y = {
    field: 'run',
    type: 'nominal',
    title: 'Target, keep-alive',
    sort: rows,
    axis: CATEGORY_AXIS,
  } as const;
  const yOffset = { field: 'measure', type: 'nominal', sort: [...MEASURES] } as const;
  const x = { field: 'ms', type: 'quantitative', title: 'ms' } as const;
  const title = 'Targets x keep-alive: client p50 and p99, database p50';
  return [
    {
      id: COMPARISON_PLOT_ID,
      section: 'comparison',
      title,
      caption:
        'One bar group per target and keep-alive variant, one panel per operation: the client’s time to first ' +
        'byte at p50 and p99 (what Artillery saw: API, function and database) and the handler’s database time ' +
        'at p50. The gap between client and database is the API and function; the gap between p50 and p99 is the tail.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'shorter is faster; labels in ms' },
        data: { values },
        facet: {
          column: { field: 'phase', type: 'nominal', title: null, sort: phasesOf(c.cells).map(phaseTitle) },
        },
        // Writes can be several times slower than reads: each panel has its own ms axis.
        resolve: { scale: { x: 'independent' } },
        spec: {
          width: 300,
          height: { step: 27 },
          layer: [
            {
              mark: { type: 'bar' },
              encoding: {
                y,
                yOffset,
                x,
                color: {
                  field: 'measure',
                  type: 'nominal',
                  title: 'Measure',
                  scale: { domain: [...MEASURES], range: MEASURE_COLORS },
                },
              },
            },
            {
              mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 },
              encoding: { y, yOffset, x, text: { field: 'text', type: 'nominal' } },
            },
          ],
        },
        config: CONFIG,
      },
    },
  ];
}

/** `1.0x` of the operation's fastest target (its client p50), `–` where it did not run. */
function timesFastest(v: OperationVerdict | null, cell: ComparisonCell | undefined): string {
  const fastest = v?.ranking[0]?.clientP50Ms;
  return cell && fastest ? `${(cell.clientP50Ms / fastest).toFixed(1)}x` : DASH;
}

/** The section: the verdict lines, the chart, and the table of the same figures. */
export function comparisonSection(report: LabReport, plots: readonly Plot[]): Section | null {
  const c = report.runComparison;
  if (!c || c.cells.length === 0) return null;
  const phases = phasesOf(c.cells);
  const verdictOf = (phase: string) =>
    phase === READ_PHASE ? c.reads : phase === WRITE_PHASE ? c.writes : null;
  const columns: Column[] = [
    { title: 'Target' },
    { title: 'Keep-alive' },
    ...phases.flatMap((p): Column[] => [
      { title: `${p} client p50 (ms)`, numeric: true },
      { title: `${p} client p99`, numeric: true },
      { title: `${p} db p50`, numeric: true },
      { title: `${p} vs fastest`, numeric: true },
    ]),
  ];
  const rows = pairsOf(c.cells).map((pair) => [
    targetLabel(pair.target),
    pair.keepAlive,
    ...phases.flatMap((p) => {
      const cell = c.cells.find(
        (x) => x.target === pair.target && x.keepAlive === pair.keepAlive && x.phase === p,
      );
      return [
        fixed(cell?.clientP50Ms),
        fixed(cell?.clientP99Ms),
        fixed(cell?.dbP50Ms),
        timesFastest(verdictOf(p), cell),
      ];
    }),
  ]);
  const plot = plots.find((p) => p.id === COMPARISON_PLOT_ID);
  const blocks: Block[] = [
    ...comparisonLines(c).map((text): Block => ({ kind: 'notice', text })),
    ...(plot ? [{ kind: 'plot', plot } as const] : []),
    {
      kind: 'text',
      text:
        'Each target at each keep-alive variant: client p50 and p99 and database p50 in ms, and the client p50 as a ' +
        'multiple of the fastest target’s for that operation (the fastest is 1.0x). The per-phase ladders follow.',
    },
    { kind: 'table', columns, rows },
  ];
  return { id: 'comparison', title: 'Comparison: targets x keep-alive', blocks };
}
