/**
 * The report's plots: Vega-Lite specs compiled and rendered to SVG strings in Node
 * (vega-lite compile -> vega View with renderer 'none' -> toSVG), so the HTML carries them
 * inline and renders with no script and no network. Each plot names its variants in a
 * legend, its units in its axis titles, and comes with a caption for the figure.
 */
import { logger, None, parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { KEEP_ALIVE_REFERENCE, TARGET_REFERENCE } from './article-figures';
import { comparisonSpec } from './comparison-section';
import { CATEGORY_AXIS, CONFIG } from './plot-style';
import {
  type CdfPoint,
  type FunctionStats,
  type GroupReport,
  LAYER_TITLES,
  LAYERS,
  type LabReport,
  type TuningReport,
} from './report-model';

export type PlotSection =
  | 'comparison'
  | 'targets'
  | 'ladders'
  | 'keep-alive'
  | 'cold-starts'
  | 'connections'
  | 'over-time'
  | 'functions'
  | 'tuning'
  | 'cost';

export interface Plot {
  /** unique, usable as an HTML id: `plot-<id>` */
  readonly id: string;
  readonly section: PlotSection;
  readonly title: string;
  readonly caption: string;
  readonly svg: string;
}

export interface PlotSpec {
  readonly id: string;
  readonly section: PlotSection;
  readonly title: string;
  readonly caption: string;
  readonly spec: TopLevelSpec;
}

/** Keep-alive variants in fixed colours across every plot (off red, on blue); the legend lists those present. */
const VARIANT_COLORS: Readonly<Record<string, string>> = {
  'keep-alive off': '#d62728',
  'keep-alive on': '#1f77b4',
  'keep-alive default': '#7f7f7f',
};

function variantScale(variants: readonly string[]) {
  const present = [...new Set(variants)].sort();
  return {
    domain: present,
    range: present.map((v, i) => VARIANT_COLORS[v] ?? ['#2ca02c', '#9467bd', '#8c564b'][i % 3]),
  };
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The id of the distribution plot of one target and phase, for placing it beside its table. */
export const cdfPlotId = (target: string, phase: string) => `cdf-${slug(`${target}-${phase}`)}`;

/** The id of the target comparison's bar chart. */
export const TARGET_PLOT_ID = 'target-db-p50';

/** The id of the plot of the i-th Power Tuning result. */
export const tuningPlotId = (fn: string, i: number) => `tuning-${slug(fn)}-${i + 1}`;

/** Log axes cannot show 0; a sample of 0 ms (possible from Artillery's whole ms) sits at 1 µs. */
const positive = (ms: number) => Math.max(ms, 0.001);

function cdfRows<T extends Record<string, string>>(points: readonly CdfPoint[], extra: T) {
  return points.map((p) => ({ ...extra, ms: positive(p.ms), percentile: p.percentile }));
}

// ---------------------------------------------------------------- specs

function latencyCdfSpecs(groups: readonly GroupReport[]): PlotSpec[] {
  const pairs = [...new Set(groups.map((g) => `${g.target}\u0000${g.phase}`))];
  return pairs.flatMap((pair): PlotSpec[] => {
    const [target, phase] = pair.split('\u0000');
    const members = groups.filter((g) => g.target === target && g.phase === phase);
    const values = members.flatMap((g) =>
      g.layers.flatMap((l) =>
        cdfRows(l.cdf, { layer: LAYER_TITLES[l.layer], variant: `keep-alive ${g.keepAlive}` }),
      ),
    );
    if (values.length === 0) return [];
    const layers = LAYERS.filter((layer) => members.some((g) => g.layers.some((l) => l.layer === layer)));
    const title = `${target} ${phase}: latency distribution per layer`;
    return [
      {
        id: cdfPlotId(target, phase),
        section: 'ladders',
        title,
        caption:
          'Cumulative distribution: each curve rises from 0 % to 100 % of requests as latency grows, ' +
          'so a curve further left is faster and the top of the curve is the tail. One panel per layer ' +
          '(client = what Artillery measured, function = Lambda REPORT Duration, database = the handler’s dbMs); ' +
          'x axes are logarithmic and independent per panel.',
        spec: {
          $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
          title: {
            text: title,
            subtitle: 'share of requests completed within a latency, by keep-alive variant',
          },
          data: { values },
          facet: {
            column: {
              field: 'layer',
              type: 'nominal',
              title: null,
              sort: layers.map((l) => LAYER_TITLES[l]),
            },
          },
          resolve: { scale: { x: 'independent' } },
          spec: {
            width: 260,
            height: 220,
            mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
            encoding: {
              x: {
                field: 'ms',
                type: 'quantitative',
                // nice: false keeps the axis on the data; a log scale would otherwise round out to whole decades.
                scale: { type: 'log', nice: false },
                title: 'Latency (ms, log scale)',
                axis: { tickCount: 5 },
              },
              y: {
                field: 'percentile',
                type: 'quantitative',
                scale: { domain: [0, 100] },
                title: 'Requests completed (%)',
              },
              color: {
                field: 'variant',
                type: 'nominal',
                title: 'Variant',
                scale: variantScale(values.map((v) => v.variant)),
              },
              order: { field: 'percentile', type: 'quantitative' },
            },
          },
          config: CONFIG,
        },
      },
    ];
  });
}

function targetSpec(report: LabReport): PlotSpec[] {
  const values = report.targetComparison.flatMap((c) =>
    c.rows.flatMap((r) =>
      r.dbMs
        ? [
            {
              phase: c.phase,
              variant: `keep-alive ${c.keepAlive}`,
              target: r.label,
              p50: r.dbMs.p50,
              text: r.dbMs.p50.toFixed(1),
            },
          ]
        : [],
    ),
  );
  if (values.length === 0) return [];
  // Rows come in TARGET_INFO's order (DynamoDB first); bars and legend keep it.
  const targets = [...new Set(values.map((v) => v.target))];
  const phases = [...new Set(values.map((v) => v.phase))];
  const x = {
    field: 'variant',
    type: 'nominal',
    title: 'Keep-alive variant',
    axis: { labelAngle: 0 },
  } as const;
  const xOffset = { field: 'target', type: 'nominal', sort: targets } as const;
  const title = 'Database time per target (handler dbMs, p50)';
  return [
    {
      id: TARGET_PLOT_ID,
      section: 'targets',
      title,
      caption:
        'Bars: median database time of each target, one panel per phase, grouped by keep-alive variant; the ' +
        `label is the p50 in ms. For reference, ${TARGET_REFERENCE.source}.`,
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'one bar per target; lower is faster' },
        data: { values },
        facet: { column: { field: 'phase', type: 'nominal', title: null, sort: phases } },
        // A phase shows only the variants it compares: no empty slot for one DynamoDB ran alone.
        resolve: { scale: { x: 'independent', xOffset: 'independent' } },
        spec: {
          width: 260,
          height: 240,
          layer: [
            {
              mark: { type: 'bar' },
              encoding: {
                x,
                xOffset,
                y: { field: 'p50', type: 'quantitative', title: 'Database time p50 (ms)' },
                color: { field: 'target', type: 'nominal', title: 'Target', sort: targets },
              },
            },
            {
              mark: { type: 'text', dy: -7, fontSize: 11 },
              encoding: {
                x,
                xOffset,
                y: { field: 'p50', type: 'quantitative' },
                text: { field: 'text', type: 'nominal' },
              },
            },
          ],
        },
        config: CONFIG,
      },
    },
  ];
}

/** The id of the latency-versus-cost chart. */
export const COST_PLOT_ID = 'latency-vs-cost';

/** One point per target x keep-alive x phase: $ per million requests against client p50, as Power Tuning plots cost against speed. */
function costSpec(report: LabReport): PlotSpec[] {
  const values = report.groups.flatMap((g) => {
    const p50 = g.layers.find((l) => l.layer === 'client')?.ladder.p50;
    if (!g.cost || p50 === undefined) return [];
    return [
      {
        target: g.target,
        run: g.label,
        variant: `keep-alive ${g.keepAlive}${g.memoryMb === null ? '' : `, ${g.memoryMb} MB`}`,
        phase: g.phase,
        usd: g.cost.total,
        p50,
      },
    ];
  });
  if (values.length === 0) return [];
  const title = 'Latency against cost per target and setting';
  return [
    {
      id: COST_PLOT_ID,
      section: 'cost',
      title,
      caption:
        'Each point is one phase: x is its $ per million requests (Lambda + API + database), y its client p50 in ms. ' +
        'Lower left is faster and cheaper.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'one point per target x keep-alive x phase; lower left is better' },
        data: { values },
        width: 420,
        height: 280,
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          x: { field: 'usd', type: 'quantitative', title: '$ per million requests', scale: { zero: false } },
          y: { field: 'p50', type: 'quantitative', title: 'Client latency p50 (ms)', scale: { zero: false } },
          color: { field: 'target', type: 'nominal', title: 'Target' },
          shape: { field: 'variant', type: 'nominal', title: 'Setting' },
          tooltip: [
            { field: 'run', type: 'nominal' },
            { field: 'usd', type: 'quantitative', format: '.2f' },
            { field: 'p50', type: 'quantitative', format: '.1f' },
          ],
        },
        config: CONFIG,
      },
    },
  ];
}

function keepAliveSpec(report: LabReport): PlotSpec[] {
  const values = report.keepAlive.flatMap((c) =>
    c.layers.map((l) => ({
      run: `${c.target} ${c.phase}`,
      layer: l.layer,
      ratio: l.ratioP50,
      label: `${l.ratioP50.toFixed(1)}x`,
    })),
  );
  if (values.length === 0) return [];
  const ref = KEEP_ALIVE_REFERENCE;
  const title = 'Keep-alive: how much slower each layer is without it (p50 off / p50 on)';
  const layerOrder = [...LAYERS];
  return [
    {
      id: 'keep-alive-ratio',
      section: 'keep-alive',
      title,
      caption:
        `Bars: median latency with keep-alive off divided by the median with it on, per layer and run. ` +
        `1x (grey line) means no difference; the dashed line is the articles’ ${ref.offMs} ms -> ${ref.onMs} ms (${ref.ratio}x) for one DynamoDB call.`,
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: {
          text: title,
          subtitle: `dashed: the articles’ ${ref.offMs} ms -> ${ref.onMs} ms = ${ref.ratio}x`,
        },
        width: 520,
        height: 260,
        layer: [
          {
            data: { values },
            mark: { type: 'bar' },
            encoding: {
              x: {
                field: 'layer',
                type: 'nominal',
                title: 'Layer (client = Artillery, function = REPORT Duration, database = handler dbMs)',
                sort: layerOrder,
                axis: { labelAngle: 0, labelFontSize: 12 },
              },
              xOffset: { field: 'run', type: 'nominal' },
              y: {
                field: 'ratio',
                type: 'quantitative',
                title: 'p50 without / p50 with keep-alive (x)',
                // Room above the tallest bar's label and the reference line.
                scale: { domainMax: Math.max(ref.ratio, ...values.map((v) => v.ratio)) * 1.15 },
              },
              // Below the plot: the reference label sits to the right of it.
              color: {
                field: 'run',
                type: 'nominal',
                title: 'Run (target, phase)',
                legend: { orient: 'bottom' },
              },
            },
          },
          {
            data: { values },
            mark: { type: 'text', dy: -7, fontSize: 11 },
            encoding: {
              x: { field: 'layer', type: 'nominal', sort: layerOrder },
              xOffset: { field: 'run', type: 'nominal' },
              y: { field: 'ratio', type: 'quantitative' },
              text: { field: 'label', type: 'nominal' },
            },
          },
          {
            data: { values: [{ y: ref.ratio, text: `articles: ${ref.ratio}x` }] },
            layer: [
              {
                mark: { type: 'rule', strokeDash: [6, 4], color: '#333' },
                encoding: { y: { field: 'y', type: 'quantitative' } },
              },
              {
                // Right of the plot area, where no bar can hide it.
                mark: {
                  type: 'text',
                  align: 'left',
                  baseline: 'middle',
                  x: { expr: 'width + 6' },
                  color: '#333',
                  fontSize: 11,
                },
                encoding: {
                  y: { field: 'y', type: 'quantitative' },
                  text: { field: 'text', type: 'nominal' },
                },
              },
            ],
          },
          {
            data: { values: [{ y: 1 }] },
            mark: { type: 'rule', color: '#999' },
            encoding: { y: { field: 'y', type: 'quantitative' } },
          },
        ],
        config: CONFIG,
      },
    },
  ];
}

interface ColdRow {
  readonly who: string;
  readonly kind: string;
  readonly ms: number;
}

const COLD_KINDS = ['warm invocation: Duration p50', 'cold invocation: Duration p50', 'Init Duration p50'];

function coldRowsOfFunction(f: FunctionStats): ColdRow[] {
  const rows: ColdRow[] = [];
  if (f.warm) rows.push({ who: f.name, kind: COLD_KINDS[0], ms: f.warm.p50 });
  if (f.cold) rows.push({ who: f.name, kind: COLD_KINDS[1], ms: f.cold.p50 });
  if (f.init.p50 !== null) rows.push({ who: f.name, kind: COLD_KINDS[2], ms: f.init.p50 });
  return rows;
}

function coldStartSpec(report: LabReport): PlotSpec[] {
  const values = report.functions.filter((f) => f.init.count > 0 || f.cold).flatMap(coldRowsOfFunction);
  if (values.length === 0) return [];
  const title = 'Cold starts: init time and cold vs warm invocation duration (p50)';
  return [
    {
      id: 'cold-starts',
      section: 'cold-starts',
      title,
      caption:
        'Per function: median Duration of warm invocations, of cold ones (REPORT lines with an Init Duration), ' +
        'and the median Init Duration itself (on-demand cold starts and provisioned-concurrency INIT_REPORT lines). ' +
        'A cold request waits for init plus its Duration.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'from the REPORT and INIT_REPORT lines' },
        data: { values },
        width: 520,
        height: { step: 16 },
        mark: { type: 'bar' },
        encoding: {
          y: { field: 'who', type: 'nominal', title: 'Function', axis: CATEGORY_AXIS },
          yOffset: { field: 'kind', type: 'nominal', sort: COLD_KINDS },
          x: { field: 'ms', type: 'quantitative', title: 'Milliseconds (p50)' },
          color: {
            field: 'kind',
            type: 'nominal',
            title: 'What',
            sort: COLD_KINDS,
            scale: { domain: COLD_KINDS, range: ['#2ca02c', '#ff7f0e', '#9467bd'] },
          },
        },
        config: CONFIG,
      },
    },
  ];
}

function connectionSpec(groups: readonly GroupReport[]): PlotSpec[] {
  const values = groups.flatMap((g) => {
    const c = g.connections;
    if (!c) return [];
    const rows: { who: string; connection: string; p50: number; p99: number }[] = [];
    if (c.newConnection)
      rows.push({
        who: g.label,
        connection: 'new connection',
        p50: c.newConnection.ladder.p50,
        p99: c.newConnection.ladder.p99,
      });
    if (c.reused)
      rows.push({
        who: g.label,
        connection: 'reused connection',
        p50: c.reused.ladder.p50,
        p99: c.reused.ladder.p99,
      });
    return rows;
  });
  if (values.length === 0) return [];
  const title = 'Connection reuse: database time of calls that opened a connection vs reused one';
  const encodingBase = {
    y: { field: 'who', type: 'nominal', title: 'Run', axis: CATEGORY_AXIS },
    yOffset: { field: 'connection', type: 'nominal' },
    color: {
      field: 'connection',
      type: 'nominal',
      title: 'Database call',
      scale: { domain: ['new connection', 'reused connection'], range: ['#d62728', '#1f77b4'] },
    },
  } as const;
  return [
    {
      id: 'connection-reuse',
      section: 'connections',
      title,
      caption:
        'Bars: median database time (handler dbMs) of calls that opened a new TCP+TLS connection and of calls that ' +
        'reused a kept-alive one; black ticks: their p99. The gap is what keep-alive saves on each call.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'bar = p50, black tick = p99' },
        data: { values },
        width: 520,
        height: { step: 18 },
        layer: [
          {
            mark: { type: 'bar' },
            encoding: {
              ...encodingBase,
              x: { field: 'p50', type: 'quantitative', title: 'Database time (ms)' },
            },
          },
          {
            mark: { type: 'tick', color: 'black', thickness: 2 },
            encoding: {
              ...encodingBase,
              color: { value: 'black' },
              x: { field: 'p99', type: 'quantitative' },
            },
          },
        ],
        config: CONFIG,
      },
    },
  ];
}

function overTimeSpec(groups: readonly GroupReport[]): PlotSpec[] {
  const values = groups.flatMap((g) =>
    g.timeline.map((p) => ({
      run: g.label,
      t: p.offsetS,
      throughput: p.throughputPerSec,
      errors: p.errors,
    })),
  );
  if (values.length === 0) return [];
  const title = 'Throughput and errors over the load run';
  const x = {
    field: 't',
    type: 'quantitative',
    title: 'Seconds since the first run started (10 s periods)',
    axis: { format: '.0f' },
  } as const;
  const color = { field: 'run', type: 'nominal', title: 'Run' } as const;
  return [
    {
      id: 'over-time',
      section: 'over-time',
      title,
      caption:
        'Artillery’s 10-second periods, one line per run (target, phase, keep-alive variant), runs one after another. ' +
        'Top: responses per second; bottom: failed requests (non-2xx and errors) per period. ' +
        'Periods shorter than a second have no throughput point.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'Artillery intermediate periods' },
        data: { values },
        vconcat: [
          {
            width: 560,
            height: 180,
            transform: [{ filter: 'datum.throughput != null' }],
            mark: { type: 'line', point: true },
            encoding: {
              x,
              y: { field: 'throughput', type: 'quantitative', title: 'Throughput (responses/s)' },
              color,
            },
          },
          {
            width: 560,
            height: 120,
            mark: { type: 'line', point: true },
            encoding: {
              x,
              y: { field: 'errors', type: 'quantitative', title: 'Errors per period (count)' },
              color,
            },
          },
        ],
        // One time axis for both panels, so a period lines up with itself.
        resolve: { scale: { x: 'shared' } },
        config: CONFIG,
      },
    },
  ];
}

function functionCdfSpec(report: LabReport): PlotSpec[] {
  // Results folders already show the function layer per run; this is for log input.
  if (report.mode === 'results' || report.functions.length === 0) return [];
  const values = report.functions.flatMap((f) => cdfRows(f.cdf, { fn: f.name }));
  const title = 'Function duration distribution (REPORT Duration)';
  return [
    {
      id: 'function-duration-cdf',
      section: 'functions',
      title,
      caption:
        'Cumulative distribution of the Duration on the REPORT lines, one curve per function: a curve further ' +
        'left is faster, the top of the curve is the tail (cold starts show up there). Logarithmic x axis.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        title: { text: title, subtitle: 'share of invocations that took at most x ms' },
        data: { values },
        width: 520,
        height: 260,
        mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
        encoding: {
          x: {
            field: 'ms',
            type: 'quantitative',
            scale: { type: 'log', nice: false },
            title: 'Duration (ms, log scale)',
          },
          y: {
            field: 'percentile',
            type: 'quantitative',
            scale: { domain: [0, 100] },
            title: 'Invocations completed (%)',
          },
          color: { field: 'fn', type: 'nominal', title: 'Function' },
          order: { field: 'percentile', type: 'quantitative' },
        },
        config: CONFIG,
      },
    },
  ];
}

function tuningSpecs(tuning: readonly TuningReport[]): PlotSpec[] {
  return tuning.flatMap((t, i): PlotSpec[] => {
    // Cost per million invocations: readable numbers instead of 2.1e-7.
    const measures = ['average duration (ms)', 'cost per million invocations (USD)'];
    const values = t.memory.flatMap((m) => [
      ...(m.avgDurationMs !== null
        ? [{ memory: m.memoryMb, measure: measures[0], value: m.avgDurationMs }]
        : []),
      ...(m.avgCostUsd !== null
        ? [{ memory: m.memoryMb, measure: measures[1], value: m.avgCostUsd * 1e6 }]
        : []),
    ]);
    if (values.length === 0) return [];
    const title = `Power Tuning: ${t.function}, duration and cost per memory size`;
    // One layer per measure; a layer item of a TopLevelSpec, typed by where it is used.
    type LayerItem = Extract<TopLevelSpec, { layer: unknown }>['layer'][number];
    const line = (measure: string, axisTitle: string, orient: 'left' | 'right'): LayerItem => ({
      transform: [{ filter: { field: 'measure', equal: measure } }],
      mark: { type: 'line', point: true, strokeWidth: 2 },
      encoding: {
        x: { field: 'memory', type: 'ordinal', title: 'Memory size (MB)', axis: { labelAngle: 0 } },
        y: { field: 'value', type: 'quantitative', title: axisTitle, axis: { orient } },
        color: {
          field: 'measure',
          type: 'nominal',
          title: 'Measure',
          scale: { domain: measures, range: ['#1f77b4', '#ff7f0e'] },
        },
      },
    });
    return [
      {
        id: tuningPlotId(t.function, i),
        section: 'tuning',
        title,
        caption:
          `AWS Lambda Power Tuning: average duration (left axis) and average cost per million invocations (right axis) at each ` +
          `memory size tested; the dashed line marks the memory it chose (${t.powerMb} MB${t.strategy ? `, strategy ${t.strategy}` : ''}).`,
        spec: {
          $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
          title: { text: title, subtitle: `chosen: ${t.powerMb} MB (dashed)` },
          data: { values },
          width: 480,
          height: 240,
          layer: [
            line(measures[0], 'Average duration (ms)', 'left'),
            line(measures[1], 'Cost per million invocations (USD)', 'right'),
            {
              data: { values: [{ memory: t.powerMb }] },
              mark: { type: 'rule', strokeDash: [6, 4], color: '#333' },
              encoding: { x: { field: 'memory', type: 'ordinal' } },
            },
          ],
          resolve: { scale: { y: 'independent' } },
          config: CONFIG,
        },
      },
    ];
  });
}

/** Every plot the report has data for, as specs (exported for tests and for reuse). */
export function plotSpecs(report: LabReport): PlotSpec[] {
  return [
    // The page's order: the run's comparison first, then the per-phase target tables, then the ladders.
    ...comparisonSpec(report),
    ...targetSpec(report),
    ...costSpec(report),
    ...latencyCdfSpecs(report.groups),
    ...keepAliveSpec(report),
    ...coldStartSpec(report),
    ...connectionSpec(report.groups),
    ...overTimeSpec(report.groups),
    ...functionCdfSpec(report),
    ...tuningSpecs(report.tuning),
  ];
}

// ---------------------------------------------------------------- rendering

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Vega-Lite spec -> SVG markup, with an id, a <title> and a <desc> for the reader and for checks. */
export async function renderSvg(p: Omit<PlotSpec, 'section'>): Promise<string> {
  // Vega-Lite warns about harmless things (e.g. a dropped channel); the report stays quiet.
  const quiet = logger(None);
  const { spec } = compile(p.spec, { logger: quiet });
  const view = new View(parse(spec), { renderer: 'none', logger: quiet });
  try {
    const svg = await view.toSVG();
    const open = svg.indexOf('>');
    return (
      `<svg id="plot-${p.id}" role="img" aria-labelledby="plot-${p.id}-title" ${svg.slice(5, open)}>` +
      `<title id="plot-${p.id}-title">${escapeXml(p.title)}</title><desc>${escapeXml(p.caption)}</desc>` +
      svg.slice(open + 1)
    );
  } finally {
    view.finalize();
  }
}

export async function renderPlots(report: LabReport): Promise<Plot[]> {
  const specs = plotSpecs(report);
  const plots: Plot[] = [];
  for (const s of specs)
    plots.push({ id: s.id, section: s.section, title: s.title, caption: s.caption, svg: await renderSvg(s) });
  return plots;
}
