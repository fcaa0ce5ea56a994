/**
 * The "Article vs this run" rows of every experiment, without running one (issue 20, "Every
 * experiment" and "Done when"): each row names its quantity (kind) and statistic, the same for
 * the article and the lab; a row without a measurement says why; a setting never stands in the
 * measured column. And the rows built from new telemetry: QLDB's commands by name, the 10-put
 * function's Duration, the Power Tuning result, the seeded reads.
 */
import { describe, expect, it } from 'vitest';
import { TARGETS } from '../../core/lab-functions';
import { keepAlive } from '../../experiments/definitions/keep-alive';
import { provisionedIdle } from '../../experiments/definitions/provisioned-idle';
import { qldbVsDynamodb } from '../../experiments/definitions/qldb-vs-dynamodb';
import { redisVsOthers } from '../../experiments/definitions/redis-vs-others';
import { EXPERIMENTS } from '../../experiments/registry';
import {
  type Call,
  type ColdStartView,
  type DirectRedisView,
  estimateS,
  type PlanContext,
  type TuningView,
} from '../../experiments/types';
import { PROVISIONED_FIGURES } from '../../report/article-figures';
import type { GroupReport, RowKind } from '../../report/report-model';
import type { Ladder } from '../../runs/latency-histogram';
import type { LabRow } from '../../runs/results';
import { stepView } from '../support/step-view';

const KINDS: readonly RowKind[] = ['duration', 'db', 'connection', 'size', 'init', 'throughput', 'count'];

const ladder = (mean: number): Ladder => ({
  count: 100,
  min: mean / 2,
  mean,
  p50: mean,
  p75: mean,
  p90: mean,
  p95: mean * 1.2,
  p99: mean * 1.5,
  'p99.9': mean * 2,
  max: mean * 3,
});

const CONTEXTS: readonly PlanContext[] = [
  { quick: true, where: 'local', targets: TARGETS },
  { quick: false, where: 'local', targets: TARGETS },
  { quick: false, where: 'aws', targets: TARGETS },
];

describe('every experiment’s rows', () => {
  it.each(EXPERIMENTS.flatMap((e) => CONTEXTS.map((ctx) => [e.name, ctx.where, ctx.quick, e, ctx] as const)))(
    '%s (%s, quick %s): kind and statistic on each row, a reason for each missing number, no metric twice',
    (_name, _where, _quick, e, ctx) => {
      const steps = new Map(e.plan(ctx).map((p) => [p.name, stepView(p)]));
      const { rows } = e.rows(steps, ctx, new Map());
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(KINDS, r.metric).toContain(r.kind);
        expect(r.statistic.trim(), r.metric).not.toBe('');
        // One statistic names both sides: never "p99 vs mean".
        expect(r.statistic, r.metric).not.toMatch(/\bvs\b/);
        expect(r.article === null || Number.isFinite(r.article), r.metric).toBe(true);
        expect(r.articleText.trim(), r.metric).not.toBe('');
        expect(r.measured, r.metric).toBeNull();
        expect(r.note, r.metric).toMatch(/^no measured number: \S/);
      }
      expect(new Set(rows.map((r) => r.metric)).size).toBe(rows.length);
    },
  );
});

describe('qldb-vs-dynamodb', () => {
  const ctx: PlanContext = { quick: true, where: 'local', targets: TARGETS };
  const plans = qldbVsDynamodb.plan(ctx);
  const commands = {
    calls: 30,
    breakdowns: [
      { commands: { StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 }, total: 3, calls: 24 },
      {
        commands: { StartSession: 1, StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 },
        total: 4,
        calls: 6,
      },
    ],
  };
  const steps = new Map(
    plans.map((p) => [
      p.name,
      stepView(p, {
        row: (target, _v, phase) =>
          target === 'qldb' && phase === 'get' ? ({ dbCommands: commands } as unknown as LabRow) : undefined,
      }),
    ]),
  );

  it('compares the get function’s SendCommands with its session start against the article’s 4, and the create’s with none', () => {
    const { rows } = qldbVsDynamodb.rows(steps, ctx, new Map());
    const get = rows.find((r) => r.metric.startsWith('QLDB get 4:'));
    expect(get).toMatchObject({
      metric:
        'QLDB get 4: StartSession 1, StartTransaction 1, ExecuteStatement 1, CommitTransaction 1: SendCommand calls of a request that starts its session, keep-alive on',
      kind: 'count',
      statistic: 'a request that starts its session',
      article: 4,
      measured: 4,
      role: 'prediction',
    });
    expect(get?.articleText).toContain(
      'StartSession 1, StartTransaction 1, ExecuteStatement 1, CommitTransaction 1',
    );
    // Why it differs from a warm read, and the other calls' breakdown.
    expect(get?.note).toContain('80 % of 30 calls sent 3');
    expect(get?.note).toContain('pool');
    expect(get?.note).toContain('a warm read sends 3');
    // The article traced its get function only: the create's row has no article figure.
    const create = rows.find((r) => r.metric === 'QLDB create: SendCommand calls per request, keep-alive on');
    expect(create?.article).toBeNull();
    expect(create?.measured).toBeNull();
    expect(create?.note).toMatch(/^no measured number: /);
  });

  it('sets DynamoDB’s cold start against QLDB’s, as the article’s "around 40% less"', () => {
    const init: Record<string, number> = { qldb: 200, dynamodb: 90 };
    const withInit = new Map(
      plans.map((p) => [
        p.name,
        stepView(p, {
          lab: { coldStartModel: 'cold start: Init Duration is at least … nodejs24.x arm64 123.8 ms' },
          row: (target, v, phase) =>
            v === 'on' && phase === 'get' ? ({ initMsP50: init[target] } as unknown as LabRow) : undefined,
        }),
      ]),
    );
    const r = qldbVsDynamodb
      .rows(withInit, ctx, new Map())
      .rows.find((x) => x.metric === 'cold start, get, keep-alive on: DynamoDB’s Init Duration over QLDB’s');
    expect(r).toMatchObject({ kind: 'init', article: 0.6, measured: 0.45, role: 'prediction' });
    // Both inits hold the modeled sandbox and runtime start the step ran with: the note names it.
    expect(r?.note).toContain('nodejs24.x arm64 123.8 ms');
    expect(r?.cause).toContain('SDK v2');
  });

  it('says in the Duration rows when the phases were shorter than the article’s 300 s', () => {
    const metric = 'QLDB get, keep-alive on: average function Duration';
    const note = (c: PlanContext) =>
      qldbVsDynamodb.rows(new Map(), c, new Map()).rows.find((r) => r.metric === metric)?.note ?? '';
    expect(note({ ...ctx, quick: false, durationS: 60 })).toContain(
      '--duration 60: 60 s a phase at 10/s instead of the article’s 300 s',
    );
    expect(note(ctx)).toContain('--quick: 5 s a phase');
    expect(note({ ...ctx, quick: false })).not.toContain('instead of the article’s 300 s');
  });

  it('fills "512 MB the best memory" from its Power Tuning run of qldb-get, and says why without one', () => {
    const [tuning] = qldbVsDynamodb.tunings?.(ctx) ?? [];
    expect(tuning).toMatchObject({ function: 'qldb-get', strategy: 'balanced' });
    const tuned: TuningView = {
      plan: tuning,
      wallS: 20,
      power: 1024,
      cost: 1e-7,
      duration: 12,
      stats: tuning.powerValues.map((value) => ({ value, averageDuration: 10, averagePrice: 1e-7 })),
    };
    const metric = 'QLDB get function: the best memory size, cost against speed';
    const filled = qldbVsDynamodb
      .rows(steps, ctx, new Map([[tuning.name, tuned]]))
      .rows.find((r) => r.metric === metric);
    expect(filled).toMatchObject({ article: 512, measured: 1024, unit: 'MB' });
    expect(filled?.note).toContain('balanced');
    const aws = qldbVsDynamodb
      .rows(new Map(), { ...ctx, where: 'aws' }, new Map())
      .rows.find((r) => r.metric === metric);
    expect(aws?.measured).toBeNull();
    expect(aws?.note).toContain('npm run tune -- --function qldb-get');
    // Without QLDB among the targets there is nothing to tune.
    expect(qldbVsDynamodb.tunings?.({ ...ctx, targets: ['dynamodb'] })).toEqual([]);
  });

  it('fills the unbundled zip and the Init Duration bundling saved from its cold-starts step, and says why without one', () => {
    const [plan] = qldbVsDynamodb.coldStarts?.(ctx) ?? [];
    expect(plan).toMatchObject({ name: 'cold-starts', function: 'qldb-get', runs: 2 });
    expect(qldbVsDynamodb.coldStarts?.({ ...ctx, quick: false })?.[0]?.runs).toBe(5);
    expect(qldbVsDynamodb.coldStarts?.({ ...ctx, targets: ['dynamodb'] })).toEqual([]);
    const cs: ColdStartView = {
      plan,
      wallS: 30,
      memoryMb: 512,
      node: '24.21.0',
      memoryModel: 'cgroup-v2',
      coldStartModel:
        'cold start: Init Duration is at least Lambda’s published empty-function init, the local runtime start counted in it: nodejs24.x arm64 123.8 ms (hello-world Init Duration, 2026)',
      bundled: { zipBytes: 113_000, initMs: [150, 170, 160, 400, 165] },
      unbundled: {
        zipBytes: 6_012_282,
        initMs: [250, 240, 260, 900, 255],
        packages: ['amazon-qldb-driver-nodejs@3.1.0', 'ion-js@5.2.1'],
        files: 6491,
        bytes: 15_806_599,
      },
    };
    const rows = qldbVsDynamodb.rows(steps, ctx, new Map(), new Map([[plan.name, cs]])).rows;
    const by = (metric: string) => rows.find((r) => r.metric === metric);
    expect(
      by(
        'the service’s deployment zip, unbundled (node_modules zipped): the QLDB get function’s, whose node_modules the other three share but for the DynamoDB client',
      ),
    ).toMatchObject({
      kind: 'size',
      article: 10.18,
      measured: 6.012282,
      unit: 'MB',
    });
    // The 300 and 500 ms the article never stated are not rows.
    expect(rows.some((r) => r.metric.startsWith('QLDB get cold start: Init Duration, '))).toBe(false);
    const saved = by('QLDB get cold start: Init Duration saved by bundling (unbundled - bundled)');
    expect(saved).toMatchObject({ kind: 'init', statistic: 'p50', article: 200, measured: 90 });
    // p50 of each build (nearest rank): 165 and 255; the outliers do not move it.
    expect(saved?.note).toContain('bundled p50 165.0 ms against unbundled 255.0 ms');
    expect(saved?.note).toContain('5 on-demand cold starts of each build, alternating');
    expect(saved?.note).toContain('SDK v2');
    // Both builds pay the modeled sandbox and runtime start: the note names the model.
    expect(saved?.note).toContain('nodejs24.x arm64 123.8 ms');
    expect(
      by('QLDB get cold start: share of the unbundled Init Duration saved by bundling')?.measured,
    ).toBeCloseTo(1 - 165 / 255);
    // Without the step, and against the deployed stack, the rows say why they have no number.
    const none = qldbVsDynamodb.rows(steps, ctx, new Map()).rows;
    const missing = none.find(
      (r) => r.metric === 'QLDB get cold start: Init Duration saved by bundling (unbundled - bundled)',
    );
    expect(missing?.measured).toBeNull();
    expect(missing?.note).toContain('the cold-starts step did not finish');
    const aws = qldbVsDynamodb.rows(new Map(), { ...ctx, where: 'aws' }, new Map()).rows;
    expect(aws.find((r) => r.kind === 'size' && r.article === 10.18)?.note).toContain('local lab only');
  });
});

describe('keep-alive', () => {
  const ctx: PlanContext = { quick: false, where: 'local', targets: TARGETS };

  it('runs the put10 function beside create and get, and reads its rows from put10’s REPORT Duration', () => {
    const [plan] = keepAlive.plan(ctx);
    expect(plan).toMatchObject({
      targets: ['dynamodb'],
      operations: ['create', 'get', 'put10'],
      parallel: 1,
    });
    const step = stepView(plan, {
      layer: (target, v, phase, layer) =>
        target === 'dynamodb' && phase === 'put10' && layer === 'function'
          ? ladder(v === 'off' ? 150 : 50)
          : null,
    });
    const { rows } = keepAlive.rows(new Map([[plan.name, step]]), ctx);
    const ten = rows.filter((r) => r.metric.includes('(put10)'));
    expect(ten.map((r) => [r.kind, r.statistic, r.article, r.measured])).toEqual([
      ['duration', 'mean', 180, 150],
      ['duration', 'mean', 60, 50],
      ['duration', 'mean ratio', 3, 3],
    ]);
  });
});

describe('redis-vs-others', () => {
  it('seeds 1,000 Persons before each level (100 with --quick), as the article inserted 1000 objects', () => {
    const plans = redisVsOthers.plan({ quick: false, where: 'local', targets: TARGETS });
    expect(plans.map((p) => [p.parallel, p.seedRecords, p.durationS])).toEqual([
      [1, 1000, 60],
      [10, 1000, 60],
      [100, 1000, 60],
    ]);
    const quick = redisVsOthers.plan({ quick: true, where: 'local', targets: TARGETS });
    expect(quick.every((p) => p.seedRecords === 100)).toBe(true);
  });

  it('compares a client straight to the database with the article, each rung with its role, and keeps the through-Lambda ladders apart', () => {
    const ctx: PlanContext = { quick: false, where: 'local', targets: ['redis', 'dynamodb'] };
    const [plan] = redisVsOthers.directs?.(ctx) ?? [];
    expect(plan).toMatchObject({ levels: [1, 10, 100], durationS: 60, seedRecords: 1000 });
    const ladder = [0.7, 0.75, 0.8, 0.85, 0.9, 2, 5];
    const direct: DirectRedisView = {
      plan,
      wallS: 800,
      profile: 'in-region',
      results: plan.levels.flatMap((level) =>
        plan.operations.map((op) => ({
          op,
          level,
          count: 1000,
          errors: 0,
          perMinute: 80_000,
          ladderMs: ladder,
        })),
      ),
    };
    const { rows, tables } = redisVsOthers.rows(
      new Map(),
      ctx,
      new Map(),
      new Map(),
      new Map([[plan.name, direct]]),
    );
    const by = (metric: string) => rows.find((r) => r.metric === metric);
    const readP50 = by('read (get), 1 connection, Redis, client straight to the database: latency p50');
    // Redis's service time was fitted to these two rungs: calibration, not counted.
    expect(readP50).toMatchObject({ measured: 0.7, role: 'calibration' });
    expect(by('read (get), 1 connection, Redis, client straight to the database: latency p99.22')?.role).toBe(
      'calibration',
    );
    expect(by('read (get), 1 connection, Redis, client straight to the database: latency p75')).toMatchObject(
      {
        statistic: 'p75',
        measured: 0.75,
        role: 'prediction',
      },
    );
    expect(
      by('insert (create), 100 connections, Redis, client straight to the database: requests per minute'),
    ).toMatchObject({
      measured: 80_000,
      role: 'prediction',
    });
    // Through Lambda: every target in the ladders table, no row compared with the article.
    expect(rows.some((r) => r.metric.includes('worker') && r.article !== null && r.role !== 'gone')).toBe(
      false,
    );
    expect(tables?.[0].title).toContain('not compared');
    // Without the direct step, each row says why it has no number.
    const none = redisVsOthers.rows(new Map(), ctx).rows.find((r) => r.metric === readP50?.metric);
    expect(none?.note).toContain('the direct-client step did not finish');
  });
});

describe('provisioned-idle', () => {
  const pcCall = (at: number, clientMs: number, dbMs = 20, newConnection = true): Call => ({
    at,
    dbMs,
    clientMs,
    newConnection,
    coldStart: false,
    initType: 'provisioned-concurrency',
    dbRequests: 1,
    dbRoundTrips: 1,
    environment: 'env-1',
  });
  const full: PlanContext = { quick: false, where: 'local', targets: TARGETS };

  it('runs both of the article’s tables, each gap as a request, the gap, a request, its ~40 s point included', () => {
    const plan = provisionedIdle.plan(full);
    const by = (name: string) => plan.find((p) => p.name === name);
    // Keep-alive off and on, as its two tables: each variant's gaps are the cases of its table.
    expect(by('gap-90s')?.variants).toEqual(['on', 'off']);
    expect(by('gap-20s')?.variants).toEqual(['off']);
    expect(by('gap-40s')?.variants).toEqual(['on']);
    for (const name of ['gap-60s', 'gap-65s']) expect(by(name)?.variants).toEqual(['on', 'off']);
    for (const name of ['gap-20s', 'gap-40s', 'gap-60s', 'gap-65s']) {
      // One request before the gap (the get phase's one-arrival warm-up) and one after, in the one provisioned environment.
      expect(by(name)).toMatchObject({
        warmupS: 1,
        ratePerS: 1,
        durationS: 1,
        operations: ['create', 'get'],
      });
      expect(by(name)?.parallel).toBeUndefined();
      expect(by(name)?.context?.provisionedConcurrency).toBe('1');
    }
    // The first request after provisioning has none before it: the environment idles from its init.
    expect(by('gap-90s')).toMatchObject({ warmupS: 0, idleGapS: 90 });
    // The estimate waits one gap per keep-alive variant: each variant's create comes first, then its gap.
    const [gap90] = plan;
    const oneVariant = estimateS([{ ...gap90, variants: ['on'] }]);
    expect(estimateS([gap90]) - oneVariant).toBeLessThan(90 + 20);
    expect(estimateS([gap90]) - oneVariant).toBeGreaterThan(90);
    // The engines' idle timeout lies between the longest kept idle time and the shortest lost one.
    for (const p of plan) {
      expect(p.idleTimeoutS).toBeGreaterThan(PROVISIONED_FIGURES.keptAfterS);
      expect(p.idleTimeoutS).toBeLessThan(PROVISIONED_FIGURES.droppedAfterS);
    }
  });

  it('measures the gap from the request before it (the warm-up), never the setting, and reads the first read’s own REPORT', () => {
    const plan = provisionedIdle.plan(full).find((p) => p.name === 'gap-60s');
    if (!plan) throw new Error('no gap-60s step');
    const seen: boolean[] = [];
    // The warm-up's request answered at t = 1000 ms; the first read started (at - clientMs) 59.5 s later.
    const step = stepView(plan, {
      calls: (f) => {
        if (f.phase === 'get') seen.push(f.warmUp === true);
        if (f.phase === 'create') return [pcCall(100, 5)];
        if (f.warmUp) return [pcCall(1000, 5, 20, true)];
        return f.variant === 'on' ? [pcCall(60_600, 100, 21, false)] : [pcCall(60_600, 100, 70, true)];
      },
      // The warm-up's REPORT line comes first in the log.
      reportDurations: (_t, v) => (v === 'on' ? [900, 30] : [900, 95]),
    });
    const { rows } = provisionedIdle.rows(new Map([[plan.name, step]]), full);
    expect(seen).toContain(true);
    const on = (m: string) =>
      rows.find((r) => r.metric.startsWith('gap-60s keep-alive on') && r.metric.endsWith(m));
    const off = (m: string) =>
      rows.find((r) => r.metric.startsWith('gap-60s keep-alive off') && r.metric.endsWith(m));
    const gap = on(': time from the request before the gap to the first read');
    expect(gap?.measured).toBe(59.5);
    expect(gap).toMatchObject({ role: 'setting', article: 60.027 });
    expect(gap?.metric).toContain(`setting: gap ${plan.idleGapS} s after a request`);
    expect(on(': the first read’s function Duration (REPORT)')?.measured).toBe(30);
    // Each table's own call after ~60 s: kept on, new off; the other calls at that gap quoted beside it.
    expect(on(': the first read opened a new connection (1 yes, 0 no)')).toMatchObject({
      article: 0,
      measured: 0,
      role: 'calibration',
    });
    expect(on(': the first read’s database time')).toMatchObject({ article: 20.232, measured: 21 });
    expect(on(': the first read’s database time')?.articleText).toContain('20.287, 20.482');
    expect(off(': the first read opened a new connection (1 yes, 0 no)')).toMatchObject({
      article: 1,
      measured: 1,
      role: 'prediction',
    });
    expect(off(': the first read’s database time')).toMatchObject({ article: 66.93, measured: 70 });
    // All four kept-port values stand against the lab's kept first reads; the off table's calls against its off ones.
    const keptRow = rows.find((r) => r.metric.startsWith('keep-alive on: first reads after a gap on a kept'));
    expect(keptRow?.article).toBeCloseTo((21.163 + 20.232 + 20.287 + 20.482) / 4, 6);
    expect(keptRow?.measured).toBe(21);
    const offRow = rows.find((r) => r.metric === 'keep-alive off: first reads after a gap: database time');
    expect(offRow?.article).toBeCloseTo((98.379 + 66.93 + 101.498 + 83.073 + 65.295) / 5, 6);
    expect(offRow?.measured).toBe(70);
  });

  it('measures the first-after-provisioning gap from the last create', () => {
    const plan = provisionedIdle.plan(full).find((p) => p.name === 'gap-90s');
    if (!plan) throw new Error('no gap-90s step');
    const step = stepView(plan, {
      calls: (f) =>
        f.phase === 'create' ? [pcCall(500, 5), pcCall(1000, 5)] : f.warmUp ? [] : [pcCall(101_600, 100)],
    });
    const { rows } = provisionedIdle.rows(new Map([[plan.name, step]]), full);
    const gap = rows.find(
      (r) =>
        r.metric.startsWith('gap-90s keep-alive on') &&
        r.metric.includes(': time from the last create to the first read'),
    );
    expect(gap?.measured).toBe(100.5);
    expect(gap?.metric).toContain('setting: gap 90 s after provisioning');
  });

  it('sets the provisioned environment’s Init Duration at provisioning against each table’s, naming the cold-start model', () => {
    const plan = provisionedIdle.plan(full).find((p) => p.name === 'gap-90s');
    if (!plan) throw new Error('no gap-90s step');
    const step = stepView(plan, {
      lab: { coldStartModel: 'cold start: … nodejs24.x arm64 123.8 ms' },
      group: (target, variant, phase) =>
        target === 'dynamodb' && phase === 'get'
          ? ({
              coldStarts: { init: { count: 1, p50: variant === 'on' ? 180 : 190, p95: 180, max: 180 } },
            } as unknown as GroupReport)
          : undefined,
    });
    const { rows } = provisionedIdle.rows(new Map([[plan.name, step]]), full);
    const init = rows.filter((r) =>
      r.metric.endsWith('the provisioned environment’s Init Duration (at provisioning)'),
    );
    expect(init).toHaveLength(2);
    expect(init[0]).toMatchObject({ kind: 'init', article: 2229.18, measured: 180, role: 'prediction' });
    expect(init[1]).toMatchObject({ kind: 'init', article: 2395.82, measured: 190 });
    expect(init[0].note).toContain('nodejs24.x arm64 123.8 ms');
  });

  it('sets the DynamoDB call made during the provisioned init (the prewarm, from the log) against each run’s ~460 ms', () => {
    const plan = provisionedIdle.plan(full).find((p) => p.name === 'gap-90s');
    if (!plan) throw new Error('no gap-90s step');
    const step = stepView(plan, {
      initCalls: (target, variant, phase) =>
        target === 'dynamodb' && phase === 'get' ? (variant === 'on' ? [310] : [320]) : [],
    });
    const outcome = provisionedIdle.rows(new Map([[plan.name, step]]), full);
    const calls = outcome.rows.filter((r) =>
      r.metric.endsWith('the DynamoDB call made during the provisioned init'),
    );
    expect(calls.map((r) => [r.article, r.measured])).toEqual([
      [PROVISIONED_FIGURES.initCallMs.on, 310],
      [PROVISIONED_FIGURES.initCallMs.off, 320],
    ]);
    expect(calls[0]).toMatchObject({ kind: 'db', statistic: 'single', role: 'prediction' });
    // A row reproduces it now: the scorecard no longer lists it as not reproduced.
    expect(outcome.notReproduced?.map((n) => n.figure).join(' ')).not.toContain('~460 ms');
  });
});
