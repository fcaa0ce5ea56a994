/** Power Tuning's curves: cost and duration per memory size. */
import type { TopLevelSpec } from 'vega-lite';
import type { PlotSpec } from '../page';
import { CONFIG, tuningPlotId } from '../plot-style';
import type { TuningReport } from '../report-model';

export function tuningSpecs(tuning: readonly TuningReport[]): PlotSpec[] {
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
