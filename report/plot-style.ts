/** The look every report plot shares (report/plots.ts and the sections that draw their own). */

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
