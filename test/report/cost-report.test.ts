/**
 * Cost beside latency in the report: the fixture run's summary.json with a cost block per row
 * (written here with known $ per million), read back into each phase, its own section's table
 * and the latency-versus-cost chart; a summary without cost blocks has neither.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreRows } from '../../experiments/scorecard';
import { buildFromResultsDir } from '../../report/build-report';
import { combineExperimentReport } from '../../report/experiment-report';
import { COST_PLOT_ID, plotSpecs } from '../../report/plots';
import { renderReport } from '../../report/write-report';
import type { RunCost } from '../../runs/summary-schema';
import { copyFixtureResults, costBlock } from './report-fixture';

const COSTS: Record<string, { total: number; lambda: number; api: number; database: number }> = {
  'off-create': { total: 5.03, lambda: 0.9, api: 3.5, database: 0.63 },
  'off-get': { total: 4.35, lambda: 0.72, api: 3.5, database: 0.13 },
  'on-create': { total: 4.77, lambda: 0.64, api: 3.5, database: 0.63 },
  'on-get': { total: 4.06, lambda: 0.43, api: 3.5, database: 0.13 },
};

const IDLE = { key: 'lambda.provisionedGbSeconds.arm64', memoryMb: 512, wallS: 10, gbSeconds: 5 };

function withCosts(provisionedIdle?: (r: { keepAlive: string }) => RunCost['provisionedIdle']): string {
  const dir = copyFixtureResults();
  const path = join(dir, 'summary.json');
  const summary = JSON.parse(readFileSync(path, 'utf8'));
  for (const r of summary.runs) {
    r.cost = costBlock(
      COSTS[`${r.keepAlive}-${r.phase}`],
      provisionedIdle ? { provisionedIdle: provisionedIdle(r) } : {},
    );
  }
  writeFileSync(path, JSON.stringify(summary));
  return dir;
}

describe('cost in the report', () => {
  it('carries each phase’s $ per million requests, tables them beside latency and charts latency against cost', async () => {
    const report = await buildFromResultsDir(withCosts());
    const onGet = report.groups.find((g) => g.keepAlive === 'on' && g.phase === 'get');
    expect(onGet?.cost).toMatchObject({ total: 4.06, api: 3.5, database: 0.13, databaseBasis: 'measured' });
    const plot = plotSpecs(report).find((p) => p.id === COST_PLOT_ID);
    expect(plot?.section).toBe('cost');
    const spec = plot?.spec as
      | { data: { values: { usd: number; p50: number; variant: string }[] } }
      | undefined;
    const values = spec?.data.values ?? [];
    expect(values).toHaveLength(4);
    expect(values.find((v) => v.usd === 4.06)?.variant).toBe('keep-alive on');
    const { markdown, html } = await renderReport(report);
    expect(markdown).toContain('## Cost beside latency');
    expect(markdown).toContain('us-east-1.json (us-east-1, read 2026-11-25)');
    expect(markdown).toMatch(
      /\| dynamodb get, keep-alive on \| [\d.]+ \| [\d.]+ \| 4\.06 \| 0\.43 \| 3\.50 \| 0\.13 \(measured\) \|/,
    );
    // Self-contained: the chart is inline SVG, nothing loaded from elsewhere.
    expect(html).toContain(`id="plot-${COST_PLOT_ID}"`);
  });

  it('an experiment (keep-alive on/off, memory sizes) shows each step’s cost beside its latency', async () => {
    const step = await buildFromResultsDir(withCosts());
    const report = combineExperimentReport(
      {
        name: 'keep-alive',
        article: 'keep-alive.md',
        title: 'Keep-alive',
        where: 'local',
        quick: true,
        wallS: 1,
        missingTargets: [],
        steps: [{ name: 'run', description: 'keep-alive on and off', dir: 'run', wallS: 1 }],
        rows: [],
        tables: [],
        scorecard: scoreRows([], null),
      },
      [{ name: 'run', report: step }],
    );
    const { markdown } = await renderReport(report);
    const section = markdown.slice(markdown.indexOf('## Cost beside latency'));
    expect(section).toMatch(
      /\| run: dynamodb get, keep-alive off \| [\d.]+ \| [\d.]+ \| 4\.35 \| 0\.72 \| 3\.50 \| 0\.13 \(measured\) \|/,
    );
    expect(section).toMatch(/\| run: dynamodb get, keep-alive on \| [\d.]+ \| [\d.]+ \| 4\.06 \|/);
  });

  it('states provisioned concurrency’s $ per hour on a line of its own, unpriced with the reason', async () => {
    // As runs/run-cost.ts writes it: x86_64 priced, arm64 unverified.
    const report = await buildFromResultsDir(
      withCosts((r) =>
        r.keepAlive === 'on'
          ? { ...IDLE, concurrency: 1, usdPerHour: 0.0075, usd: 0.000125 }
          : { ...IDLE, concurrency: 1, usdPerHour: null, usd: null, unpriced: 'arm64 price unverified' },
      ),
    );
    const onGet = report.groups.find((g) => g.keepAlive === 'on' && g.phase === 'get');
    // Not folded into $ per million.
    expect(onGet?.cost).toMatchObject({
      total: 4.06,
      provisionedIdle: { concurrency: 1, usdPerHour: 0.0075 },
    });
    const { markdown } = await renderReport(report);
    const section = markdown.slice(markdown.indexOf('## Cost beside latency'));
    expect(section).toContain('dynamodb get, keep-alive on: provisioned concurrency 1, $0.0075 per hour');
    expect(section).toContain(
      'dynamodb get, keep-alive off: provisioned concurrency 1, unpriced (arm64 price unverified)',
    );
    expect(section).toMatch(/\| dynamodb get, keep-alive on \| [\d.]+ \| [\d.]+ \| 4\.06 \|/);
  });

  it('has no cost section or chart for a summary without cost blocks', async () => {
    const report = await buildFromResultsDir(copyFixtureResults());
    expect(report.groups.every((g) => g.cost === null)).toBe(true);
    expect(plotSpecs(report).some((p) => p.id === COST_PLOT_ID)).toBe(false);
    expect((await renderReport(report)).markdown).not.toContain('Cost beside latency');
  });
});
