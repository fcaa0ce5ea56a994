/**
 * The report opens with the run's comparison (issue 23): targets x keep-alive, client p50 and
 * p99 side by side with the database p50, as a chart in report.html and as a table in both
 * report.html and report.md. A results folder's own comparison (summary.json, what npm run load
 * printed) is the one rendered; a source without one gets it computed from the report's groups.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeLoadSummary } from '../../loadtest/load-phases';
import { runComparisonOf } from '../../report/build/compare';
import { buildFromResultsDir } from '../../report/build-report';
import { COMPARISON_PLOT_ID } from '../../report/comparison-section';
import { plotSpecs } from '../../report/plots';
import { writeReportFiles } from '../../report/write-report';
import { readSummary } from '../../runs/summary-reader';
import { copyFixtureResults, labRow, tempDir } from './report-fixture';

/** Client p50/p99 and db p50 per target x keep-alive x phase, as the rows say them. */
const FIGURES: Record<string, [number, number, number]> = {
  'dynamodb on get': [11, 40, 6.5],
  'dynamodb off get': [25, 70, 19],
  'dynamodb on create': [14, 48, 9],
  'dynamodb off create': [30, 90, 24],
  'qldb on get': [33, 120, 28],
  'qldb on create': [56, 210, 47],
};

/** The fixture folder with a summary whose rows carry the figures above: a DynamoDB and a QLDB run. */
function folderWithComparison(): string {
  const dir = copyFixtureResults();
  const rows = Object.entries(FIGURES).map(([key, [p50, p99, db]]) => {
    const [target, keepAlive, phase] = key.split(' ');
    return labRow({
      target,
      keepAlive,
      phase,
      requests: 20,
      latencyMs: { p50, p95: p99, p99, max: p99 },
      dbMs: { p50: db, p99: db * 2 },
    });
  });
  writeLoadSummary(dir, { target: 'local' }, rows, []);
  return dir;
}

describe('the report opens with the comparison', () => {
  it("renders summary.json's comparison first: the verdict, the chart and the table in HTML, the table in Markdown", async () => {
    const dir = folderWithComparison();
    const summary = readSummary(join(dir, 'summary.json'));
    expect(summary.comparison?.reads?.ranking.map((r) => `${r.target} ${r.keepAlive}`)).toEqual([
      'dynamodb on',
      'qldb on',
    ]);
    const report = await buildFromResultsDir(dir, { tuningDirs: [] });
    // The run's own comparison, not one recomputed from the timings' ladders.
    expect(report.runComparison).toEqual(summary.comparison);

    const { files } = await writeReportFiles(report, join(tempDir('run-comparison'), 'out'));
    const html = readFileSync(files.html, 'utf8');
    const firstSection = html.slice(html.indexOf('<section'), html.indexOf('</section>'));
    expect(firstSection).toMatch(/^<section id="comparison">/);
    expect(firstSection).toContain(`<svg id="plot-${COMPARISON_PLOT_ID}"`);
    expect(firstSection).toContain(
      'Reads (get): fastest DynamoDB (keep-alive on), 11.0 ms client p50; QLDB 3.0x',
    );
    expect(firstSection).toContain(
      'Writes (create): fastest DynamoDB (keep-alive on), 14.0 ms client p50; QLDB 4.0x',
    );
    // The chart draws each target x keep-alive with its three measures, labelled in ms.
    for (const label of [
      'DynamoDB, keep-alive off',
      'QLDB, keep-alive on',
      'client p99',
      'database p50',
      '210.0',
    ])
      expect(firstSection).toContain(label);

    const md = readFileSync(files.markdown, 'utf8');
    expect(md.match(/^## .*$/m)?.[0]).toBe('## Comparison: targets x keep-alive');
    expect(md).toContain(
      '| Target | Keep-alive | get client p50 (ms) | get client p99 | get db p50 | get vs fastest | create client p50 (ms) | create client p99 | create db p50 | create vs fastest |',
    );
    expect(md).toContain('| DynamoDB | off | 25.0 | 70.0 | 19.0 | 2.3x | 30.0 | 90.0 | 24.0 | 2.1x |');
    expect(md).toContain('| QLDB | on | 33.0 | 120.0 | 28.0 | 3.0x | 56.0 | 210.0 | 47.0 | 4.0x |');
    // Before the per-phase ladders.
    expect(md.indexOf('## Comparison: targets x keep-alive')).toBeLessThan(
      md.indexOf('## Percentile ladders'),
    );
  });

  it('has no comparison section or chart when the run has nothing to compare', async () => {
    // The fixture summary's rows carry no client latency: summary.json says comparison null.
    const report = await buildFromResultsDir(copyFixtureResults(), { tuningDirs: [] });
    expect(report.runComparison).toBeNull();
    expect(plotSpecs(report).map((p) => p.id)).not.toContain(COMPARISON_PLOT_ID);
    const { files } = await writeReportFiles(report, join(tempDir('run-comparison-none'), 'out'));
    expect(readFileSync(files.markdown, 'utf8')).not.toContain('## Comparison');
  });

  it("computes the comparison from the groups' ladders for a source without summary.json's", async () => {
    const report = await buildFromResultsDir(copyFixtureResults(), { tuningDirs: [] });
    const c = runComparisonOf(report.groups);
    const onGet = report.groups.find((g) => g.keepAlive === 'on' && g.phase === 'get');
    const client = onGet?.layers.find((l) => l.layer === 'client')?.ladder;
    const db = onGet?.layers.find((l) => l.layer === 'database')?.ladder;
    expect(c?.cells.find((x) => x.keepAlive === 'on' && x.phase === 'get')).toEqual({
      target: 'dynamodb',
      keepAlive: 'on',
      phase: 'get',
      clientP50Ms: client?.p50,
      clientP99Ms: client?.p99,
      dbP50Ms: db?.p50,
    });
    // Keep-alive on is the faster variant of the fixture's get (10 ms against 40 ms client p50).
    expect(c?.reads?.ranking[0]).toMatchObject({ target: 'dynamodb', keepAlive: 'on', ratio: 1 });
  });
});
