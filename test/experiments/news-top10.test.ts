/**
 * The news-top10 experiment's plan (the article's stories seeded, its memory, its sparse traffic
 * and its keep-warm job) and its rows (the same quantity and statistic as the article's, the
 * fresh-client share beside them), read from steps whose calls the test gives.
 */
import { describe, expect, it } from 'vitest';
import { KEEP_WARM, NEWS_SHAPE, newsTop10 } from '../../experiments/definitions/news-top10';
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
function stepWith(byTarget: Record<string, readonly Call[]>, seen: CallFilter[] = [], index = 0): StepView {
  return {
    plan: newsTop10.plan({ quick: true, where: 'local', targets: ['redis', 'dynamodb', 'dsql'] })[index],
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
  it('seeds the article’s stories, then runs the top 10 alone in sparse bursts, 1,000 requests a target', () => {
    for (const quick of [true, false]) {
      const [step] = newsTop10.plan({
        quick,
        where: 'local',
        targets: ['dynamodb', 'qldb', 'redis', 'dsql'],
      });
      const shape = quick ? NEWS_SHAPE.quick : NEWS_SHAPE.full;
      expect(step.name).toBe('news-site');
      // QLDB has no top 10 (core/lab-functions.ts OPERATION_TARGETS): the article's targets and DSQL.
      expect(step.targets).toEqual(['redis', 'dynamodb', 'dsql']);
      // The stories are seeded straight into the engines: no create or view phase is measured.
      expect(step.operations).toEqual(['top10']);
      expect(step.seedStories).toBe(shape.stories);
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
    const [full] = newsTop10.plan({ quick: false, where: 'local', targets: ['redis'] });
    expect(full.seedStories).toBe(NEWS_TOP10_FIGURES.stories);
    // At least 1,000 requests a target: a p99 with ten values above it.
    expect(full.durationS * (full.ratePerS ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('runs the article’s keep-warm job as its own step: one request every 15 s, environments and connections kept', () => {
    const [, warm] = newsTop10.plan({ quick: false, where: 'local', targets: ['redis', 'dynamodb', 'dsql'] });
    expect(warm.name).toBe('keep-warm');
    expect(warm.operations).toEqual(['top10']);
    expect(warm.seedStories).toBe(NEWS_TOP10_FIGURES.stories);
    // One arrival a burst, then a pause: a request every keepWarmEveryS, as the article's job.
    expect(warm.ratePerS).toBe(1);
    expect(warm.bursts).toMatchObject({ activeS: 1, operations: ['top10'] });
    expect((warm.bursts?.activeS ?? 0) + (warm.bursts?.pauseS ?? 0)).toBe(NEWS_TOP10_FIGURES.keepWarmEveryS);
    expect(warm.durationS).toBe(KEEP_WARM.full.visits);
    // No reclaim and the lab's idle timeout (60 s): both outlast the interval.
    expect(warm.reclaimIdleS).toBeUndefined();
    expect(warm.idleTimeoutS).toBeUndefined();
  });

  it('--quick stays about a minute; --duration sets the active seconds of each phase', () => {
    const quick = newsTop10.plan({ quick: true, where: 'local', targets: ['redis', 'dynamodb', 'dsql'] });
    expect(estimateS(quick)).toBeLessThanOrEqual(90);
    const [three] = newsTop10.plan({ quick: true, where: 'local', targets: ['redis'], durationS: 3 });
    expect(three.durationS).toBe(3);
  });

  it('runs the targets side by side, so a default run takes one target’s time, not three', () => {
    const plan = newsTop10.plan({ quick: false, where: 'local', targets: ['redis', 'dynamodb', 'dsql'] });
    expect(plan.every((s) => s.targetsAtOnce)).toBe(true);
    const oneAfterAnother = estimateS(plan.map((s) => ({ ...s, targetsAtOnce: false })));
    expect(estimateS(plan)).toBeLessThan(oneAfterAnother / 2);
  });
});

describe('news-top10 rows', () => {
  it('compare the top 10’s query time at the article’s statistics, with the fresh-client share beside them', () => {
    // Redis: 2 fresh requests (a cold start, a new connection after a pause), 8 warm ones.
    const redis = [
      call(40, 'cold', 4),
      call(30, 'new', 4),
      ...Array.from({ length: 8 }, (_, i) => call(2 + i * 0.1, 'warm', 1)),
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
    // The article's one ZREVRANGE against the lab's one EVAL, warm requests only.
    expect(by('database round trips')).toMatchObject({
      kind: 'count',
      statistic: 'mean',
      article: 1,
      measured: 1,
    });
    expect(by('database round trips')?.note).toContain('one EVAL');
    // The rows say what they ran over: the seeded stories.
    // (the step given ran the quick plan's seeding)
    expect(by('query time p99')?.note).toContain(`over ${NEWS_SHAPE.quick.stories} stories seeded`);
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

describe('news-top10 keep-warm rows', () => {
  it('compare the job’s requests after its first with the article’s warm figures, with their fresh share', () => {
    // The job's first request built the client; the next three kept it, one met a new connection.
    const redis = [
      call(45, 'cold', 1),
      call(1.2, 'warm', 1),
      call(1.4, 'warm', 1),
      call(9, 'new', 1),
      call(1.3, 'warm', 1),
    ];
    const seen: CallFilter[] = [];
    const { rows, notReproduced } = newsTop10.rows(
      new Map([
        ['news-site', stepWith({})],
        ['keep-warm', stepWith({ redis }, seen, 1)],
      ]),
      { quick: false, where: 'local', targets: ['redis'] },
    );
    expect(seen.every((f) => f.phase === 'top10' && f.variant === 'on')).toBe(true);
    const p50 = rows.find(
      (r) => r.metric === 'Redis top 10: query time p50, a request every 15 s (the keep-warm job)',
    );
    expect(p50).toMatchObject({ kind: 'db', statistic: 'p50', article: NEWS_TOP10_FIGURES.warmMs.redis });
    // The first (cold) request is left out: the p50 of 1.2, 1.3, 1.4, 9.
    expect(p50?.measured).toBeGreaterThanOrEqual(1.3);
    expect(p50?.measured).toBeLessThan(1.5);
    expect(p50?.note).toContain('4 of them: 1 met a cold start or a new connection');
    const share = rows.find(
      (r) => r.metric === 'Redis top 10: keep-warm requests that met a cold start or a new connection',
    );
    expect(share?.measured).toBe(25);
    // The seeded stories and the keep-warm job are rows now, not figures left unreproduced.
    expect(notReproduced ?? []).toEqual([]);
  });

  it('say why there is no number when the keep-warm step did not run', () => {
    const { rows } = newsTop10.rows(new Map([['news-site', stepWith({})]]), {
      quick: false,
      where: 'local',
      targets: ['dynamodb'],
    });
    const p50 = rows.find((r) => r.metric.startsWith('DynamoDB top 10: query time p50, a request every'));
    expect(p50).toMatchObject({ article: NEWS_TOP10_FIGURES.warmMs.dynamodb, measured: null });
    expect(p50?.note).toMatch(/^no measured number: the keep-warm step did not run/);
  });
});
