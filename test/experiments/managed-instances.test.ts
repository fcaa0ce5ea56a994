/**
 * The `managed-instances` experiment without running it: its plan (standard Lambda against
 * Managed Instances at 1, 10 and 100 clients, --quick at 1 and 10, every target of the registry),
 * its rows (lab only, each figure from the step's row), and its answer per database, read from the
 * measured figures: the tail latency, the errors, the connections, and the instance price under
 * which Managed Instances cost less.
 */
import { describe, expect, it } from 'vitest';
import { loadPriceFile } from '../../core/price-file';
import { articleConditions, NO_ARTICLE, TODAY } from '../../experiments/conditions';
import {
  breakEvenInstanceHourUsd,
  type Cell,
  cellOf,
  managedInstances,
  stepName,
  verdictOf,
} from '../../experiments/definitions/managed-instances';
import { EXPERIMENTS, findExperiment } from '../../experiments/registry';
import type { PlanContext, StepPlan } from '../../experiments/types';
import type { GroupReport } from '../../report/report-model';
import type { LabRow } from '../../runs/results';
import { runCost } from '../../runs/run-cost';
import { stepView } from '../support/step-view';

const TARGETS = ['dynamodb', 'redis'];
const quick: PlanContext = { quick: true, where: 'local', targets: TARGETS };
const full: PlanContext = { quick: false, where: 'local', targets: TARGETS };
const prices = loadPriceFile();

/** A phase's cost block as run-load writes it: 1,000 invocations of 10 ms at 1024 MB, or on 3 instances for 30 s. */
function cost(managed: boolean) {
  const n = 1000;
  return runCost(
    {
      reports: Array.from({ length: n }, () => ({
        billedDurationMs: 10,
        memorySizeMb: managed ? 2048 : 1024,
      })),
      timings: [],
      architecture: 'arm64',
      api: 'rest',
      ...(managed ? { managedInstances: { instanceType: 'c7g.large', instances: 3, wallS: 30 } } : {}),
    },
    prices,
  );
}

function labRow(target: string, over: Partial<LabRow>): LabRow {
  return {
    target,
    keepAlive: 'on',
    phase: 'get',
    mode: 'closed',
    parallel: 10,
    ratePerS: null,
    requests: 1000,
    errors: 0,
    throughputPerSec: 33,
    latencyMs: { p50: 20, p95: 40, p99: 60, max: 90 },
    dbMs: { p50: 8, p99: 30 },
    dbRequests: null,
    dbRoundTrips: null,
    environments: 10,
    maxInFlight: 10,
    newConnectionShare: 0.01,
    coldStarts: 10,
    initMsP50: 200,
    ...over,
  };
}

const group = (onDemandColdStarts: number) =>
  ({ coldStarts: { onDemandColdStarts } }) as unknown as GroupReport;

/** Steps where each compute's row is `over(compute)` for every target. */
function steps(
  ctx: PlanContext,
  over: (plan: StepPlan) => Partial<LabRow>,
  cold: (plan: StepPlan) => number,
) {
  return new Map(
    managedInstances.plan(ctx).map((p) => [
      p.name,
      stepView(p, {
        row: (t) => labRow(t, over(p)),
        group: () => group(cold(p)),
      }),
    ]),
  );
}

const isManaged = (p: StepPlan) => p.context?.compute === 'managed-instances';

describe('managed-instances: its plan', () => {
  it('is registered, and its article is none: today’s conditions only', () => {
    expect(EXPERIMENTS).toContain(managedInstances);
    expect(findExperiment('managed-instances')).toBe(managedInstances);
    expect(managedInstances.article).toBe(NO_ARTICLE);
    expect(articleConditions(NO_ARTICLE).name).toBe(NO_ARTICLE);
    expect({ ...articleConditions(NO_ARTICLE), name: TODAY.name, label: TODAY.label }).toEqual(TODAY);
  });

  it('runs each compute at 1, 10 and 100 clients (--quick: 1 and 10), every chosen target, get on seeded Persons', () => {
    const names = (ctx: PlanContext) => managedInstances.plan(ctx).map((p) => p.name);
    expect(names(full)).toEqual([
      'standard-1',
      'standard-10',
      'standard-100',
      'managed-instances-1',
      'managed-instances-10',
      'managed-instances-100',
    ]);
    expect(names(quick)).toEqual([
      'standard-1',
      'standard-10',
      'managed-instances-1',
      'managed-instances-10',
    ]);
    for (const p of managedInstances.plan(full)) {
      expect(p.targets).toEqual(TARGETS);
      expect(p.operations).toEqual(['get']);
      expect(p.variants).toEqual(['on']);
      expect(p.seedRecords).toBeGreaterThan(0);
      expect(p.todayOnly).toMatch(/Managed Instances/);
      expect(p.parallel).toBe(Number(p.name.split('-').at(-1)));
    }
  });

  it('synthesizes Managed Instances at their smallest, and lets standard Lambda start one environment per client', () => {
    const plan = managedInstances.plan(full);
    for (const p of plan.filter(isManaged))
      expect(p.context).toEqual({
        compute: 'managed-instances',
        memorySize: '2048',
        managedInstancesMemoryGiBPerVCpu: '2',
      });
    const standard = plan.filter((p) => !isManaged(p));
    expect(standard.every((p) => p.context === undefined)).toBe(true);
    const hundred = standard.find((p) => p.parallel === 100);
    expect(hundred?.maxEnvironments).toBe(100);
    // A target's hundred environments end once idle, before the next target's start.
    expect(hundred?.reclaimIdleS).toBeGreaterThan(0);
  });
});

describe('managed-instances: its rows and its answer', () => {
  it('each row is lab only and carries the step row’s figure; the cost row names what is unpriced', () => {
    const s = steps(
      full,
      (p) =>
        isManaged(p)
          ? {
              latencyMs: { p50: 15, p95: 30, p99: 40, max: 50 },
              dbConnections: { peak: 3, peakAll: 6, used: 3, opened: 0 },
              coldStarts: 3,
              cost: cost(true),
            }
          : {
              dbConnections: { peak: p.parallel ?? 0, peakAll: 12, used: 10, opened: 10 },
              cost: cost(false),
            },
      (p) => (isManaged(p) ? 0 : (p.parallel ?? 0)),
    );
    const { rows, tables } = managedInstances.rows(s, full);
    expect(rows).toHaveLength(TARGETS.length * 2 * 3 * 7);
    for (const r of rows) {
      expect(r.article, r.metric).toBeNull();
      expect(r.role, r.metric).toBe('setting');
      expect(r.measured, r.metric).not.toBeNull();
    }
    const find = (metric: string) => rows.find((r) => r.metric === metric);
    expect(find('Redis, Managed Instances, 100 clients: client latency p99')?.measured).toBe(40);
    expect(find('Redis, standard Lambda, 100 clients: connections open at the database')?.measured).toBe(100);
    expect(find('Redis, Managed Instances, 10 clients: connections open at the database')?.measured).toBe(3);
    // Cold starts are the REPORT lines with an Init Duration, not the handler's first invocations.
    expect(find('DynamoDB, Managed Instances, 1 client: cold starts')?.measured).toBe(0);
    expect(find('DynamoDB, standard Lambda, 10 clients: cold starts')?.measured).toBe(10);
    const miCost = find('DynamoDB, Managed Instances, 10 clients: $ per million requests');
    expect(miCost?.note).toContain('lambda.managedInstances.instanceHours.c7g.large');
    expect(miCost?.measured).toBeCloseTo(cost(true)?.perMillion.total ?? Number.NaN, 9);

    const answer = tables?.find((t) => t.columns.includes('Choose'));
    expect(answer?.rows.map((r) => r.slice(0, 2))).toEqual([
      ['DynamoDB', 'Managed Instances'],
      ['Redis', 'Managed Instances'],
    ]);
    expect(answer?.rows[0][2]).toMatch(
      /client p99 40\.0 ms on Managed Instances against 60\.0 ms \(0\.67x\) at 100 clients/,
    );
    expect(answer?.rows[0][2]).toMatch(/3 connection\(s\) open at the database against 100/);
    expect(answer?.rows[0][2]).toMatch(/0 cold start\(s\) against 111/);
    expect(tables?.every((t) => t.terminal)).toBe(true);
  });

  it('a step that did not run leaves its rows without a number, each saying why', () => {
    const plan = managedInstances.plan(quick);
    const s = new Map(plan.filter((p) => !isManaged(p)).map((p) => [p.name, stepView(p)]));
    const { rows, tables } = managedInstances.rows(s, quick);
    for (const r of rows) {
      expect(r.measured, r.metric).toBeNull();
      expect(r.note).toMatch(/^no measured number: the step \S+ did not run/);
    }
    expect(tables?.find((t) => t.columns.includes('Choose'))?.rows[0][1]).toBe('–');
  });

  const cell = (over: Partial<Cell>): Cell => ({
    requests: 1000,
    errors: 0,
    throughputPerSec: 30,
    clientP50: 20,
    clientP99: 60,
    dbP50: 8,
    dbP99: 30,
    connections: 10,
    coldStarts: 10,
    usdPerMillion: 5,
    lambdaUsdPerMillion: 1.5,
    unpriced: [],
    instanceHoursPerRequest: null,
    instanceType: null,
    ...over,
  });
  const cells = (standard: Cell, managed: Cell) =>
    new Map([
      [stepName('standard', 10), standard],
      [stepName('managed-instances', 10), managed],
    ]);

  it('answers standard Lambda when Managed Instances are slower at the tail, or throttled', () => {
    const s = cell({});
    const slower = verdictOf('dsql', cells(s, cell({ clientP99: 67, connections: 3, coldStarts: 0 })), [10]);
    expect(slower.choose).toBe('standard');
    expect(slower.why).toMatch(/1\.12x/);
    const throttled = verdictOf('dsql', cells(s, cell({ errors: 4, clientP99: 30 })), [10]);
    expect(throttled.choose).toBe('standard');
    expect(throttled.why).toMatch(/answered 4 error\(s\) at 10 clients/);
    const even = verdictOf('dsql', cells(s, cell({ clientP99: 65, connections: 3, coldStarts: 0 })), [10]);
    expect(even.choose).toBe('managed-instances');
  });

  it('the instance-hour price under which Managed Instances cost less, from both phases’ figures', () => {
    const s = cellOf(
      stepView(managedInstances.plan(quick)[1], { row: (t) => labRow(t, { cost: cost(false) }) }),
      'redis',
    );
    const m = cellOf(
      stepView(managedInstances.plan(quick)[3], { row: (t) => labRow(t, { cost: cost(true) }) }),
      'redis',
    );
    if (!s || !m) throw new Error('no cells');
    // 3 instances for 30 s over 1,000 requests.
    expect(m.instanceHoursPerRequest).toBeCloseTo((3 * 30) / 3600 / 1000, 12);
    expect(m.instanceType).toBe('c7g.large');
    const expected =
      ((s.lambdaUsdPerMillion as number) - (m.lambdaUsdPerMillion as number)) /
      1e6 /
      (m.instanceHoursPerRequest as number);
    expect(breakEvenInstanceHourUsd(s, m)).toBeCloseTo(expected, 12);
    expect(expected).toBeGreaterThan(0);
    // Without a cost block there is nothing to compare.
    expect(breakEvenInstanceHourUsd(s, { ...m, instanceHoursPerRequest: null })).toBeNull();
  });
});
