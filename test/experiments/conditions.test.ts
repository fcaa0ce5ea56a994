import { describe, expect, it } from 'vitest';
import {
  ARTICLE_CONDITIONS,
  applied,
  articleConditions,
  type Conditions,
  differences,
  loadRuns,
  TODAY,
} from '../../experiments/conditions';
import { EXPERIMENTS } from '../../experiments/registry';
import { row, withTodayColumn } from '../../experiments/rows';
import type { StepPlan } from '../../experiments/types';
import { SEEDS } from '../../report/article-figures';

const PARAMETERS = [
  'runtime',
  'sdk',
  'functionKeepAlive',
  'tlsMaxVersion',
  'memoryMb',
  'region',
  'clientPlacement',
  'profile',
] as const;

const all: Conditions[] = [TODAY, ...Object.values(ARTICLE_CONDITIONS)];

describe('conditions', () => {
  it('every seed article has conditions, and every experiment’s article is one of them', () => {
    expect(Object.keys(ARTICLE_CONDITIONS).sort()).toEqual(Object.values(SEEDS).sort());
    for (const e of EXPERIMENTS) expect(() => articleConditions(e.article)).not.toThrow();
  });

  it('each stated SDK, TLS version, memory, region and runtime cites a source; each parameter says what the lab did', () => {
    for (const c of all) {
      for (const p of PARAMETERS) {
        const param = c[p];
        expect(param.lab.length, `${c.name} ${p}`).toBeGreaterThan(10);
        for (const s of param.sources) expect(s.url ?? s.seed, `${c.name} ${p}: ${s.what}`).toBeTruthy();
      }
      for (const p of ['sdk', 'tlsMaxVersion', 'memoryMb', 'region', 'runtime'] as const)
        if (c[p].value !== null) expect(c[p].sources.length, `${c.name} ${p}`).toBeGreaterThan(0);
    }
    // The facts the brief names, each with its public source.
    const urls = (c: Conditions, p: (typeof PARAMETERS)[number]) => c[p].sources.map((s) => s.url ?? '');
    expect(urls(TODAY, 'sdk').join()).toContain(
      'sdk-for-javascript/v3/developer-guide/node-reusing-connections',
    );
    expect(urls(articleConditions(SEEDS.keepAlive), 'sdk').join()).toContain(
      'sdk-for-javascript/v2/developer-guide/node-reusing-connections',
    );
    expect(urls(articleConditions(SEEDS.keepAlive), 'tlsMaxVersion').join()).toContain('rfc8446');
  });

  it('today: nodejs24.x, SDK v3 keeping connections, TLS 1.3, the in-region profile; the 2019 and 2020 articles: SDK v2 and TLS 1.2', () => {
    expect(TODAY.runtime.value).toBe('nodejs24.x');
    expect(TODAY.sdk.value?.keepsAliveByDefault).toBe(true);
    expect(TODAY.tlsMaxVersion.value).toBe('TLSv1.3');
    expect(TODAY.profile.value).toBe('in-region');
    for (const seed of [SEEDS.keepAlive, SEEDS.qldb]) {
      const c = articleConditions(seed);
      expect(c.sdk.value?.keepsAliveByDefault).toBe(false);
      expect(c.tlsMaxVersion.value).toBe('TLSv1.2');
    }
  });

  it('an article that does not give a condition runs as today, and says so; a step’s own memory wins', () => {
    const provisioned = articleConditions(SEEDS.provisioned);
    expect(provisioned.tlsMaxVersion.value).toBeNull();
    // Its TLS is not stated, so only its runtime's init differs from today's.
    expect(differences(applied(provisioned, 256), applied(TODAY, 256))).toEqual([
      'nodejs20.x’s init against nodejs24.x’s init',
    ]);
    expect(applied(provisioned, 256).initRuntime).toBe('nodejs20.x');
    expect(applied(TODAY, 256).initRuntime).toBeUndefined();
    const qldb = articleConditions(SEEDS.qldb);
    expect(differences(applied(qldb, undefined), applied(TODAY, undefined))).toEqual([
      'TLS 1.2 against TLS 1.3',
      '1024 MB against the template’s memory',
    ]);
    expect(applied(qldb, 256).memoryMb).toBe(256);
  });

  it('doubles only the load runs whose conditions differ (the wall-time estimate)', () => {
    const step = (name: string, more: Partial<StepPlan> = {}): StepPlan => ({
      name,
      description: name,
      targets: ['dynamodb', 'qldb'],
      variants: ['on'],
      operations: ['get'],
      durationS: 1,
      ...more,
    });
    const plan = [step('a'), step('b', { memoryMb: 256 })];
    const names = (steps: readonly StepPlan[]) => steps.map((s) => `${s.name} ${s.targets.join('+')}`);
    expect(names(loadRuns(SEEDS.keepAlive, plan))).toEqual([
      'a dynamodb+qldb',
      'a dynamodb+qldb',
      'b dynamodb+qldb',
      'b dynamodb+qldb',
    ]);
    // The provisioned article's TLS is unknown, so runs as today's; its nodejs20.x init differs
    // from today's nodejs24.x in every step.
    expect(names(loadRuns(SEEDS.provisioned, plan))).toEqual([
      'a dynamodb+qldb',
      'a dynamodb+qldb',
      'b dynamodb+qldb',
      'b dynamodb+qldb',
    ]);
    // An article with no Node runtime of its own (the 2019 one states none) adds no init run.
    expect(applied(articleConditions(SEEDS.keepAlive), undefined).initRuntime).toBeUndefined();
    // A gone service has no today run; a step of the lab's own runs today only.
    const gone = step('c', { notToday: { targets: ['qldb'], reason: 'gone' } });
    expect(names(loadRuns(SEEDS.qldb, [gone, step('d', { todayOnly: 'new' })]))).toEqual([
      'c dynamodb+qldb',
      'c dynamodb',
      'd dynamodb+qldb',
    ]);
  });
});

describe('withTodayColumn', () => {
  const r = (metric: string, measured: number | null) =>
    row({
      metric,
      kind: 'db',
      statistic: 'mean',
      article: 10,
      articleText: '~10 ms',
      measured,
      unit: 'ms',
      why: 'w',
    });

  it('one run: both columns the same value, and the note says so', () => {
    const [x] = withTodayColumn([r('a', 12)], [], false);
    expect(x).toMatchObject({ measured: 12, today: 12 });
    expect(x.todayNote).toContain('one run for both columns');
  });

  it('two runs: today’s row at the same place, or none when its quantity differs', () => {
    const out = withTodayColumn(
      [r('a', 12), r('b', 5)],
      [r('a', 7), { ...r('b', 3), statistic: 'p50' }],
      true,
    );
    expect(out[0]).toMatchObject({
      measured: 12,
      today: 7,
      todayNote: 'its own run under today’s conditions',
    });
    expect(out[1]).toMatchObject({ measured: 5, today: null });
  });
});
