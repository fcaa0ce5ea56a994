/**
 * The combined report of an experiment, without running one: two steps' reports (the same
 * fixture results folder) and an experiment block become one LabReport whose first section is
 * "Article vs this run", whose groups keep their steps apart, and whose rows say why a
 * number is missing.
 */

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newsTop10 } from '../../experiments/definitions/news-top10';
import { missingTargetRow, row } from '../../experiments/rows';
import { scoreRows } from '../../experiments/scorecard';
import { buildFromResultsDir } from '../../report/build-report';
import { combineExperimentReport } from '../../report/experiment-report';
import { renderMarkdown } from '../../report/render-markdown';
import type { ExperimentBlock } from '../../report/report-model';
import { copyFixtureResults } from '../report/report-fixture';
import { stepView } from '../support/step-view';

describe('rows', () => {
  it('keep a finite measurement with its ratio to the article, or say why there is none', () => {
    const ok = row({
      metric: 'm',
      kind: 'db',
      statistic: 'mean',
      article: 10,
      articleText: '~10 ms',
      measured: 12,
      unit: 'ms',
      why: 'local lab',
    });
    expect(ok).toMatchObject({ measured: 12, kind: 'db', statistic: 'mean' });
    expect(ok.note).toBe('agrees with the article (1.20x); local lab');
    const none = row({
      metric: 'm',
      kind: 'db',
      statistic: 'mean',
      article: 10,
      articleText: '~10 ms',
      measured: Number.NaN,
      unit: 'ms',
      why: 'local lab',
      noMeasure: 'no cold client',
    });
    expect(none.measured).toBeNull();
    expect(none.note).toBe('no measured number: no cold client; local lab');
    const fauna = missingTargetRow('faunadb', 'FaunaDB p99', 900, '~900 ms', 'ms', {
      kind: 'db',
      statistic: 'p99',
    });
    expect(fauna).toMatchObject({ article: 900, measured: null, kind: 'db', statistic: 'p99' });
    expect(fauna.note).toContain('FaunaDB: service shut down 2025-05-30');
  });

  it('of a definition say so when a step left no calls', () => {
    const empty = stepView(newsTop10.plan({ quick: true, where: 'local', targets: ['redis'] })[0]);
    const { rows } = newsTop10.rows(new Map([['news-site', empty]]), {
      quick: true,
      where: 'local',
      targets: ['redis'],
    });
    expect(rows.map((r) => r.metric)).toEqual([
      'Redis top 10: query time p99, every request',
      'Redis top 10: query time p50, warm client (kept connection, not the environment’s first)',
      'Redis top 10: query time p50, fresh client (cold start or new connection)',
      'Redis top 10: requests that met a cold start or a new connection',
      'Redis top 10: database round trips per request',
      'Redis top 10: query time p50, a request every 3 s (the keep-warm job)',
      'Redis top 10: keep-warm requests that met a cold start or a new connection',
      'FaunaDB top 10: query time p99, every request',
    ]);
    for (const r of rows) {
      expect(r.measured).toBeNull();
      expect(r.note).toMatch(/^no measured number: /);
    }
  });
});

describe('combineExperimentReport', () => {
  const dir = copyFixtureResults();
  afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('opens with the article comparison and keeps each step’s groups apart', async () => {
    const step = await buildFromResultsDir(dir);
    const rows = [
      row({
        metric: 'put, keep-alive off',
        kind: 'db',
        statistic: 'mean',
        article: 33,
        articleText: '~33 ms',
        measured: 30,
        unit: 'ms',
        why: 'w',
      }),
      missingTargetRow('faunadb', 'FaunaDB p99', 900, '~900 ms', 'ms', { kind: 'db', statistic: 'p99' }),
      row({
        metric: 'put, keep-alive on',
        kind: 'db',
        statistic: 'mean',
        article: 10,
        articleText: '~10 ms',
        measured: 20,
        unit: 'ms',
        why: 'w',
        cause: "the harness's own cause",
      }),
    ];
    const block: ExperimentBlock = {
      name: 'keep-alive',
      article: 'dynamodb-http-keep-alive.txt',
      title: 'DynamoDB with and without HTTP keep-alive',
      where: 'local',
      quick: true,
      wallS: 12,
      missingTargets: [{ target: 'faunadb', reason: 'service shut down 2025-05-30' }],
      steps: [
        { name: 'first', description: 'one', dir: 'steps/first', wallS: 5 },
        { name: 'second', description: 'two', dir: 'steps/second', wallS: 6 },
      ],
      rows,
      tables: [{ title: 'Ladders', columns: ['Target', 'p50'], rows: [['Redis', '1.000']] }],
      scorecard: scoreRows(rows, { cores: 2, meanLoad: 2.5, maxLoad: 3.1, exceeded: true }),
    };
    const report = combineExperimentReport(block, [
      { name: 'first', report: step },
      { name: 'second', report: step },
    ]);
    expect(report.experiment).toBe(block);
    expect(report.groups).toHaveLength(2 * step.groups.length);
    expect(new Set(report.groups.map((g) => g.id)).size).toBe(report.groups.length);
    expect(report.groups[0].label.startsWith('first: ')).toBe(true);
    expect(report.files[0]).toBe('steps/first/summary.json');
    const md = renderMarkdown(report, []);
    const sections = md.split('\n## ').slice(1);
    expect(sections[0].startsWith('Article vs this run')).toBe(true);
    expect(sections[0]).toContain(
      '| put, keep-alive off | db, mean | 33 (~33 ms) | 30.00 | – | ms | prediction |',
    );
    expect(sections[0]).toContain('| FaunaDB p99 | db, p99 | 900 (~900 ms) | – | – | ms | gone |');
    // A block from before conditions: the three columns, the today one empty with the reason.
    expect(sections[0]).toContain('| Metric | Quantity | Article | Lab, article’s conditions | Lab today |');
    expect(sections[0]).toContain('This run predates conditions');
    expect(sections[0]).toContain('faunadb: service shut down 2025-05-30; its rows have no measured number.');
    expect(sections[0]).toContain(
      'figures 3, predictions 2, within ±30% 1 (50%), outside 1; not counted: calibration 0, settings 0, gone 1',
    );
    // The miss names its cause, and a host with more work than cores says so.
    expect(sections[0]).toMatch(/\| put, keep-alive on \| 10 \| 20 \| 2\.00x \| the harness's own cause \|/);
    expect(sections[0]).toContain('above the cores');
    expect(sections[0]).toContain('steps/second/report.html');
    expect(sections[1].startsWith('Overview')).toBe(true);
  });
});
