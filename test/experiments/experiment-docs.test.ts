import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { articleConditions, conditionNotes, conditionsRecord, TODAY } from '../../experiments/conditions';
import { DOCS_PAGE, readCommittedRuns, renderExperimentDocs } from '../../experiments/experiment-docs';
import { row, withTodayColumn } from '../../experiments/rows';
import { scoreRows } from '../../experiments/scorecard';
import { SEEDS } from '../../report/article-figures';
import type { ExperimentBlock } from '../../report/report-model';

describe('docs/experiments.md', () => {
  it('is what the committed report.json files give, every figure included (npm run docs:experiments)', () => {
    const runs = readCommittedRuns();
    const page = readFileSync(join(PROJECT_ROOT, DOCS_PAGE), 'utf8');
    expect(page).toBe(renderExperimentDocs(runs));
    // Every row of every committed run is on the page, none excerpted.
    for (const r of runs)
      for (const x of r.block.rows) expect(page).toContain(x.metric.replace(/\|/g, '\\|'));
  });

  it('renders every row with its role, the scorecard, each miss with its cause, and the host load', () => {
    const rows = [
      row({
        metric: 'hit',
        kind: 'db',
        statistic: 'mean',
        article: 10,
        articleText: '~10 ms',
        measured: 11,
        unit: 'ms',
        why: 'w',
      }),
      row({
        metric: 'miss',
        kind: 'db',
        statistic: 'mean',
        article: 10,
        articleText: '~10 ms',
        measured: 30,
        unit: 'ms',
        why: 'w',
        cause: 'TLS 1.2 in 2019',
      }),
      row({
        metric: 'fitted',
        kind: 'db',
        statistic: 'p50',
        article: 40,
        articleText: '~40 ms',
        measured: 40,
        unit: 'ms',
        why: 'w',
        role: 'calibration',
      }),
    ];
    const block: ExperimentBlock = {
      name: 'keep-alive',
      article: 'a.txt',
      title: 'T',
      where: 'local',
      quick: false,
      wallS: 200,
      missingTargets: [],
      steps: [],
      rows,
      tables: [{ title: 'Ladder', columns: ['p50'], rows: [['1.0']] }],
      scorecard: scoreRows(rows, { cores: 2, meanLoad: 1.2, maxLoad: 1.9, exceeded: false }),
    };
    const page = renderExperimentDocs([
      { path: 'docs/results/keep-alive/report.json', generatedAt: '2026-11-28T14:00:00Z', block },
    ]);
    // A run from before conditions: three columns, today's empty and the section says why.
    expect(page).toContain(
      '| Metric | Quantity | Article | Lab, article’s conditions | Lab today | Unit | Role | Note |',
    );
    expect(page).toContain(
      '| hit | db, mean | 10 (~10 ms) | 11.00 | – | ms | prediction | agrees with the article (1.10x); w |',
    );
    expect(page).toContain('| fitted | db, p50 | 40 (~40 ms) | 40.00 | – | ms | calibration |');
    expect(page).toContain('This run predates conditions');
    expect(page).toContain('| miss | 10 | 30 | 3.00x | TLS 1.2 in 2019 |');
    expect(page).toContain(
      'figures 3, predictions 2, within ±30% 1 (50%), outside 1; not counted: calibration 1',
    );
    expect(page).toContain('| `keep-alive` | default | 3 min 20 s | 3 | 2 | 1 | 1.2 / 1.9, 2 |');
    expect(page).toContain('**Ladder**');
  });

  it('renders a conditions run in three columns: the article, the lab under its conditions, the lab today', () => {
    const article = row({
      metric: 'put, keep-alive off',
      kind: 'db',
      statistic: 'mean',
      article: 33,
      articleText: '~33 ms',
      measured: 31,
      unit: 'ms',
      why: 'w',
    });
    const setting = row({
      metric: 'share of new connections',
      kind: 'connection',
      statistic: 'share',
      article: 1,
      articleText: 'every call',
      measured: 1,
      unit: 'share',
      why: 'v',
      role: 'setting',
    });
    const rows = withTodayColumn([article, setting], [{ ...article, measured: 17 }, setting], true);
    const keepAlive = articleConditions(SEEDS.keepAlive);
    const block: ExperimentBlock = {
      name: 'keep-alive',
      article: SEEDS.keepAlive,
      title: 'T',
      where: 'local',
      quick: true,
      wallS: 30,
      missingTargets: [],
      steps: [
        { name: 'sequential', description: 'd', dir: 'steps/sequential', wallS: 14, conditions: 'article' },
        {
          name: 'sequential-today',
          description: 'd',
          dir: 'steps/sequential-today',
          wallS: 14,
          conditions: 'today',
        },
      ],
      rows,
      tables: [],
      scorecard: scoreRows(rows, null),
      conditions: {
        article: conditionsRecord(keepAlive),
        today: conditionsRecord(TODAY),
        steps: [{ name: 'sequential', differences: ['TLS 1.2 against TLS 1.3'] }],
        notes: conditionNotes(keepAlive, 'local', []),
      },
    };
    const page = renderExperimentDocs([
      { path: 'docs/results/keep-alive/report.json', generatedAt: '2026-11-28T14:00:00Z', block },
    ]);
    expect(page).toContain(
      '| put, keep-alive off | db, mean | 33 (~33 ms) | 31.00 | 17.00 | ms | prediction | agrees with the article (0.94x); w; today: its own run under today’s conditions |',
    );
    expect(page).toContain(
      '| share of new connections | connection, share | 1 (every call) | 1 | 1 | share | setting | agrees with the article (1.00x); v; today: the same value: the row reads runs made once (nothing differed for them) |',
    );
    expect(page).toContain('- sequential: run twice, TLS 1.2 against TLS 1.3');
    expect(page).toMatch(
      /- TLS, newest negotiated: the article \(2019\) TLSv1\.2, today TLSv1\.3 \(applied: .*\); sources: .*rfc8446/,
    );
    expect(page).not.toContain('This run predates conditions');
  });
});
