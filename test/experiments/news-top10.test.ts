/**
 * The news-top10 experiment's plan (the article's workload, memory and sparse traffic) and its
 * rows (the same quantity and statistic as the article's, the fresh-client share beside them),
 * read from a step whose calls the test gives.
 */
import { describe, expect, it } from 'vitest';
import { NEWS_SHAPE, newsTop10 } from '../../experiments/definitions/news-top10';
import type { Call, CallFilter, StepView } from '../../experiments/types';
import { estimateS } from '../../experiments/types';
import { NEWS_TOP10_FIGURES } from '../../report/article-figures';
import { ladderOf } from '../../runs/latency-histogram';

const call = (dbMs: number, fresh: 'cold' | 'new' | 'warm', dbRoundTrips: number): Call => ({
  at: 0,
  dbMs,
  clientMs: null,
  newConnection: fresh !== 'warm',
  coldStart: fresh === 'cold',
  initType: 'on-demand',
  dbRequests: dbRoundTrips,
  dbRoundTrips,
  environment: 'env-1',
});

/** A finished step whose top10 phase answered these calls on each target. */
function stepWith(byTarget: Record<string, readonly Call[]>, seen: CallFilter[] = []): StepView {
  return {
    plan: newsTop10.plan({ quick: true, where: 'local', targets: ['redis', 'dynamodb', 'dsql'] })[0],
    wallS: 1,
    rows: [],
    lab: null,
    calls: (f) => {
      seen.push(f);
      return f.phase === 'top10' ? (byTarget[f.target] ?? []) : [];
    },
    ladder: (values) => ladderOf(values),
    rungs: () => [],
    reportDurations: () => [],
    layer: () => null,
    row: () => undefined,
    group: () => undefined,
  };
}

describe('news-top10 plan', () => {
  it('runs the article’s workload at its memory: create, view, then the top 10 in sparse bursts', () => {
    for (const quick of [true, false]) {
      const [step] = newsTop10.plan({
        quick,
        where: 'local',
        targets: ['dynamodb', 'qldb', 'redis', 'dsql'],
      });
      const shape = quick ? NEWS_SHAPE.quick : NEWS_SHAPE.full;
      // QLDB has no top 10 (core/lab-functions.ts OPERATION_TARGETS): the article's targets and DSQL.
      expect(step.targets).toEqual(['redis', 'dynamodb', 'dsql']);
      expect(step.operations).toEqual(['create', 'view', 'top10']);
      expect(step.memoryMb).toBe(NEWS_TOP10_FIGURES.memoryMb);
      expect(step.variants).toEqual(['on']);
      // An open loop at a low rate, never workers back to back.
      expect(step.parallel).toBeUndefined();
      expect(step.ratePerS).toBeLessThanOrEqual(2);
      // The page requests come in bursts whose pauses outlast the engines' idle timeout: the
      // first request of each burst meets a closed connection.
      expect(step.bursts).toMatchObject({
        activeS: shape.activeS,
        pauseS: shape.pauseS,
        operations: ['top10'],
      });
      expect(step.bursts?.pauseS).toBeGreaterThan(step.idleTimeoutS ?? Number.POSITIVE_INFINITY);
      // ... and the host's reclaim window: each burst meets a reclaimed environment, a cold start.
      expect(step.reclaimIdleS).toBe(shape.reclaimIdleS);
      expect(step.bursts?.pauseS).toBeGreaterThan(step.reclaimIdleS ?? Number.POSITIVE_INFINITY);
    }
  });

  it('--quick stays about a minute; --duration sets the active seconds of each phase', () => {
    const quick = newsTop10.plan({ quick: true, where: 'local', targets: ['redis', 'dynamodb', 'dsql'] });
    expect(estimateS(quick)).toBeLessThanOrEqual(90);
    const [three] = newsTop10.plan({ quick: true, where: 'local', targets: ['redis'], durationS: 3 });
    expect(three.durationS).toBe(3);
  });
});

describe('news-top10 rows', () => {
  it('compare the top 10’s query time at the article’s statistics, with the fresh-client share beside them', () => {
    // Redis: 2 fresh requests (a cold start, a new connection after a pause), 8 warm ones.
    const redis = [
      call(40, 'cold', 4),
      call(30, 'new', 4),
      ...Array.from({ length: 8 }, (_, i) => call(2 + i * 0.1, 'warm', 2)),
    ];
    const seen: CallFilter[] = [];
    const { rows } = newsTop10.rows(new Map([['news-site', stepWith({ redis }, seen)]]), {
      quick: false,
      where: 'local',
      targets: ['redis'],
    });
    // Only the top 10's own calls, keep-alive on, are read.
    expect(seen.every((f) => f.phase === 'top10' && f.variant === 'on')).toBe(true);
    const by = (metric: string) => rows.find((r) => r.metric.startsWith(`Redis top 10: ${metric}`));
    expect(by('query time p99')).toMatchObject({
      kind: 'db',
      statistic: 'p99',
      article: NEWS_TOP10_FIGURES.p99Ms.redis,
      unit: 'ms',
    });
    expect(by('query time p99')?.measured).toBeCloseTo(40, 0);
    expect(by('query time p99')?.note).toContain(
      '2 of 10 requests met a cold start or a new connection (20 %',
    );
    // Warm: neither cold nor on a new connection; the article's refresh figure beside it.
    const warm = by('query time p50, warm');
    expect(warm).toMatchObject({ kind: 'db', statistic: 'p50', article: NEWS_TOP10_FIGURES.warmMs.redis });
    expect(warm?.measured).toBeGreaterThanOrEqual(2);
    expect(warm?.measured).toBeLessThan(3);
    const fresh = by('query time p50, fresh');
    expect(fresh).toMatchObject({ kind: 'db', statistic: 'p50', article: null });
    expect(fresh?.measured).toBeGreaterThanOrEqual(30);
    expect(by('requests that met')).toMatchObject({
      kind: 'count',
      statistic: 'share',
      measured: 20,
      unit: '%',
    });
    // The article's one ZREVRANGE against the lab's two round trips, warm requests only.
    expect(by('database round trips')).toMatchObject({
      kind: 'count',
      statistic: 'mean',
      article: 1,
      measured: 2,
    });
    expect(by('database round trips')?.note).toContain('second round trip');
    // Every row's article and lab sides are one quantity and statistic, the FaunaDB one unmeasured.
    for (const r of rows) {
      expect(r.kind).toBeTruthy();
      expect(r.statistic).toBeTruthy();
    }
    expect(rows.at(-1)).toMatchObject({
      metric: 'FaunaDB top 10: query time p99, every request',
      measured: null,
    });
  });

  it('DSQL has rows without an article figure, and a target not chosen has none', () => {
    const dsql = [call(50, 'cold', 4), call(3, 'warm', 1), call(3.2, 'warm', 1)];
    const { rows } = newsTop10.rows(new Map([['news-site', stepWith({ dsql })]]), {
      quick: true,
      where: 'local',
      targets: ['dsql'],
    });
    expect(rows.filter((r) => r.metric.startsWith('Redis') || r.metric.startsWith('DynamoDB'))).toEqual([]);
    const p99 = rows.find((r) => r.metric === 'Aurora DSQL top 10: query time p99, every request');
    expect(p99).toMatchObject({ article: null, articleText: 'not in the article' });
    expect(p99?.measured).toBeCloseTo(50, 0);
    expect(rows.find((r) => r.metric.includes('requests that met'))?.measured).toBeCloseTo(100 / 3, 5);
  });
});
