/** The look every report plot shares, and the plots' ids (report/plots.ts and the specs in report/plot-specs/). */
import type { CdfPoint } from './report-model';

const FONT = 'DejaVu Sans, Liberation Sans, Helvetica, Arial, sans-serif';

export const CONFIG = {
  font: FONT,
  background: 'white',
  padding: 8,
  title: { fontSize: 15, anchor: 'start', subtitleFontSize: 12, subtitleColor: '#555', offset: 12 },
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#e8e8e8' },
  legend: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 'bold', labelLimit: 320, titleLimit: 320 },
  header: { labelFontSize: 12, labelFontWeight: 'bold' },
  view: { stroke: '#ccc' },
} as const;

/**
 * A y axis of names (functions, runs): its title sits above the names, right-aligned to the
 * axis, because Vega places a rotated title by an estimate of the label widths (there is no
 * canvas to measure text in Node) and long names would run into it.
 */
export const CATEGORY_AXIS = {
  labelLimit: 420,
  titleAngle: 0,
  titleAlign: 'right',
  titleAnchor: 'end',
  titleBaseline: 'bottom',
  titleX: -7,
  titleY: -6,
  titleFontWeight: 'bold',
} as const;

/** Keep-alive variants in fixed colours across every plot (off red, on blue); the legend lists those present. */
const VARIANT_COLORS: Readonly<Record<string, string>> = {
  'keep-alive off': '#d62728',
  'keep-alive on': '#1f77b4',
  'keep-alive default': '#7f7f7f',
};

export function variantScale(variants: readonly string[]) {
  const present = [...new Set(variants)].sort();
  return {
    domain: present,
    range: present.map((v, i) => VARIANT_COLORS[v] ?? ['#2ca02c', '#9467bd', '#8c564b'][i % 3]),
  };
}

export const slug = (s: string) =>
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
export const positive = (ms: number) => Math.max(ms, 0.001);

export function cdfRows<T extends Record<string, string>>(points: readonly CdfPoint[], extra: T) {
  return points.map((p) => ({ ...extra, ms: positive(p.ms), percentile: p.percentile }));
}

/** The id of the latency-versus-cost chart. */
export const COST_PLOT_ID = 'latency-vs-cost';
