/**
 * The report's plots: Vega-Lite specs compiled and rendered to SVG strings in Node
 * (vega-lite compile -> vega View with renderer 'none' -> toSVG), so the HTML carries them
 * inline and renders with no script and no network. Each plot names its variants in a
 * legend, its units in its axis titles, and comes with a caption for the figure.
 */
import { logger, None, parse, View } from 'vega';
import { compile } from 'vega-lite';
import { comparisonSpec } from './comparison-section';
import type { Plot, PlotSpec } from './page';
import {
  coldStartSpec,
  connectionSpec,
  functionCdfSpec,
  keepAliveSpec,
  overTimeSpec,
} from './plot-specs/lambda';
import { costSpec, latencyCdfSpecs, targetSpec } from './plot-specs/run';
import { tuningSpecs } from './plot-specs/tuning';
import type { LabReport } from './report-model';

export { COST_PLOT_ID, cdfPlotId, TARGET_PLOT_ID, tuningPlotId } from './plot-style';

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
