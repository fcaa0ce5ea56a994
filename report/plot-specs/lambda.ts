/** What the functions did, as plots: keep-alive, cold starts, connection reuse, the run over time, REPORT lines. */
import { KEEP_ALIVE_REFERENCE } from '../article-figures';
import type { PlotSpec } from '../page';
import { CATEGORY_AXIS, CONFIG, cdfRows } from '../plot-style';
import { type FunctionStats, type GroupReport, LAYERS, type LabReport } from '../report-model';

export function keepAliveSpec(report: LabReport): PlotSpec[] {
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

export const COLD_KINDS = [
  'warm invocation: Duration p50',
  'cold invocation: Duration p50',
  'Init Duration p50',
];

export function coldRowsOfFunction(f: FunctionStats): ColdRow[] {
  const rows: ColdRow[] = [];
  if (f.warm) rows.push({ who: f.name, kind: COLD_KINDS[0], ms: f.warm.p50 });
  if (f.cold) rows.push({ who: f.name, kind: COLD_KINDS[1], ms: f.cold.p50 });
  if (f.init.p50 !== null) rows.push({ who: f.name, kind: COLD_KINDS[2], ms: f.init.p50 });
  return rows;
}

export function coldStartSpec(report: LabReport): PlotSpec[] {
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

export function connectionSpec(groups: readonly GroupReport[]): PlotSpec[] {
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

export function overTimeSpec(groups: readonly GroupReport[]): PlotSpec[] {
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

export function functionCdfSpec(report: LabReport): PlotSpec[] {
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
