/**
 * Renders a LabReport to DIR/report.html, DIR/report.md and DIR/report.json. Everything
 * is built and rendered in memory first, so bad input fails before a file is written.
 * The renderers (vega and vega-lite through plots.ts) load on the first render, not on
 * import: the CLIs that import this module answer --help without them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type BuildOptions, buildFromResultsDir } from './build-report';
import type { LabReport } from './report-model';

export interface ReportFiles {
  readonly html: string;
  readonly markdown: string;
  readonly json: string;
}

export interface WrittenReport {
  readonly report: LabReport;
  readonly files: ReportFiles;
}

/** report.json without the plot points (`cdf`): they are for drawing, and the ladders carry the numbers. */
export function reportJson(report: LabReport): string {
  return `${JSON.stringify(report, (key, value: unknown) => (key === 'cdf' ? undefined : value), 2)}\n`;
}

export async function renderReport(
  report: LabReport,
): Promise<{ html: string; markdown: string; json: string }> {
  const [{ renderPlots }, { renderHtml }, { renderMarkdown }] = await Promise.all([
    import('./plots'),
    import('./render-html'),
    import('./render-markdown'),
  ]);
  const plots = await renderPlots(report);
  return {
    html: renderHtml(report, plots),
    markdown: renderMarkdown(report, plots),
    json: reportJson(report),
  };
}

export async function writeReportFiles(report: LabReport, outDir: string): Promise<WrittenReport> {
  const rendered = await renderReport(report);
  const dir = resolve(outDir);
  await mkdir(dir, { recursive: true });
  const files = {
    html: join(dir, 'report.html'),
    markdown: join(dir, 'report.md'),
    json: join(dir, 'report.json'),
  };
  await Promise.all([
    writeFile(files.html, rendered.html),
    writeFile(files.markdown, rendered.markdown),
    writeFile(files.json, rendered.json),
  ]);
  return { report, files };
}

export interface WriteReportOptions extends BuildOptions {
  /** a folder `npm run load` wrote: summary.json, artillery-*.json, timings.jsonl, lambda-logs.log */
  readonly inDir: string;
  readonly outDir: string;
}

/**
 * The report of one load run, for `npm run load` to call when a run ends. Throws
 * ReportInputError (nothing written) when the folder holds no readable summary.json.
 */
export async function writeReport(options: WriteReportOptions): Promise<WrittenReport> {
  const { inDir, outDir, ...build } = options;
  return writeReportFiles(await buildFromResultsDir(inDir, build), outDir);
}
