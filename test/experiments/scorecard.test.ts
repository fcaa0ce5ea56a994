import { describe, expect, it } from 'vitest';
import { missingTargetRow, row } from '../../experiments/rows';
import { combineScorecards, scoreRows, withinBand } from '../../experiments/scorecard';
import type { ExperimentRow, RowRole } from '../../report/report-model';
import { scorecardText } from '../../report/scorecard-text';

const figure = (
  metric: string,
  article: number | null,
  measured: number | null,
  role?: RowRole,
  cause?: string,
) =>
  row({
    metric,
    kind: 'db',
    statistic: 'mean',
    article,
    articleText: article === null ? 'no figure' : `~${article} ms`,
    measured,
    unit: 'ms',
    why: `why ${metric}`,
    role,
    cause,
  });

describe('scoreRows', () => {
  it('counts only predictions with an article figure, and names each miss with its cause', () => {
    const rows: ExperimentRow[] = [
      figure('within', 10, 12.9),
      figure('edge below', 10, 7),
      figure('far', 10, 25, 'prediction', 'TLS 1.2 in 2019'),
      figure('no measurement', 10, null),
      figure('fitted', 40, 41, 'calibration', 'QLDB service time fitted to it'),
      figure('gap', 60, 60, 'setting'),
      missingTargetRow('faunadb', 'FaunaDB p50', 20, '~20 ms', 'ms', { kind: 'db', statistic: 'p50' }),
      figure('lab only', null, 5),
    ];
    const c = scoreRows(rows, null);
    expect(c).toMatchObject({
      figures: 7,
      predictions: 4,
      within: 2,
      calibration: 1,
      settings: 1,
      gone: 1,
      labOnly: 1,
      hostLoad: null,
    });
    expect(c.outside.map((m) => [m.metric, m.ratio, m.cause])).toEqual([
      ['far', 2.5, 'TLS 1.2 in 2019'],
      // Without a cause of its own, the row's why (its note without the ratio) names it.
      ['no measurement', null, 'no measured number: the run produced no samples for it; why no measurement'],
    ]);
  });

  it('counts the article-conditions column, never the today one', () => {
    // Within the band under the article's conditions, far from it today (TLS 1.3, kept connections).
    const under = { ...figure('article conditions agree', 33, 30), today: 12 };
    // Far under the article's conditions, within the band today: still a miss.
    const over = { ...figure('today agrees', 10, 25), today: 10 };
    const c = scoreRows([under, over], null);
    expect(c).toMatchObject({ predictions: 2, within: 1 });
    expect(c.outside.map((m) => [m.metric, m.measured])).toEqual([['today agrees', 25]]);
  });

  it('the band is ±30% on either side, inclusive', () => {
    expect(withinBand(figure('a', 10, 13))).toBe(true);
    expect(withinBand(figure('b', 10, 13.01))).toBe(false);
    expect(withinBand(figure('c', 10, 7))).toBe(true);
    expect(withinBand(figure('d', 10, 6.99))).toBe(false);
    expect(withinBand(figure('e', 0, 0))).toBe(false);
  });

  it('combines experiments and says when the host had more work than cores', () => {
    const a = scoreRows([figure('x', 10, 10)], { cores: 2, meanLoad: 1, maxLoad: 1.5, exceeded: false });
    const b = scoreRows([figure('y', 10, 30, 'prediction', 'cause y')], {
      cores: 2,
      meanLoad: 3,
      maxLoad: 4.2,
      exceeded: true,
    });
    const c = combineScorecards([a, b]);
    expect(c).toMatchObject({ figures: 2, predictions: 2, within: 1 });
    expect(c.hostLoad).toEqual({ cores: 2, meanLoad: 2, maxLoad: 4.2, exceeded: true });
    const text = scorecardText(c);
    expect(text).toContain('predictions 2, within ±30% 1 (50%), outside 1');
    expect(text).toContain('a CPU share is a ceiling, not a guarantee');
    expect(text).toContain('outside: y (3.00x): cause y');
    // An article figure no row reproduces is listed with its reason, never dropped.
    const listed = scoreRows([], null, [{ figure: 'the 15 s keep-warm job', reason: 'no step yet' }]);
    expect(combineScorecards([c, listed]).notReproduced).toHaveLength(1);
    expect(scorecardText(listed)).toContain('not reproduced: the 15 s keep-warm job: no step yet');
  });
});
