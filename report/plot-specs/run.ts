/** The run's plots: latency distributions per target and phase, targets side by side, latency against cost. */
import { TARGET_REFERENCE } from '../article-figures';
import type { PlotSpec } from '../page';
import { CONFIG, COST_PLOT_ID, cdfPlotId, cdfRows, TARGET_PLOT_ID, variantScale } from '../plot-style';
import { type GroupReport, LAYER_TITLES, LAYERS, type LabReport } from '../report-model';

export function latencyCdfSpecs(groups: readonly GroupReport[]): PlotSpec[] {
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

export function targetSpec(report: LabReport): PlotSpec[] {
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

/** One point per target x keep-alive x phase: $ per million requests against client p50, as Power Tuning plots cost against speed. */
export function costSpec(report: LabReport): PlotSpec[] {
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
