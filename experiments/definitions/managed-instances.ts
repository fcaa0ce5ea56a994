/**
 * `managed-instances`: for each target, standard Lambda against Lambda Managed Instances (GA
 * 2025-11-30) at 1, 10 and 100 parallel clients: client and database p50 and p99, the connections
 * open at the database, cold starts and $ per million requests, and which compute to choose for
 * each database, and why, read from those figures. No seed article measured Managed Instances, so
 * every row is lab only, under today's conditions.
 */
import { TARGETS, type Target, targetLabel } from '../../core/lab-functions';
import type { ExperimentRow, ExperimentTable, RowKind } from '../../report/report-model';
import { NO_ARTICLE } from '../conditions';
import { LOCAL_MODEL_NOTE, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepPlan, StepView } from '../types';

export type Compute = 'standard' | 'managed-instances';
export const COMPUTES: readonly Compute[] = ['standard', 'managed-instances'];
const LEVELS: readonly number[] = [1, 10, 100];
/** --quick: 100 standard environments would start at once, more than a few minutes on a laptop. */
const QUICK_LEVELS: readonly number[] = [1, 10];
const DEFAULT_S = 30;
const QUICK_S = 5;
const SEED = 200;
const QUICK_SEED = 10;
/** Idle standard environments end this long after their phase at 100 clients (the host's reclaiming). */
const RECLAIM_S = 5;

/**
 * Managed Instances at their smallest: 1 vCPU with 2 GiB per vCPU (2048 MB, the minimum), Node's
 * default of 64 invocations at once per vCPU, three environments at start as Lambda starts them
 * (docs/managed-instances.md). Standard Lambda runs at the template's memory.
 */
const MI_CONTEXT = {
  compute: 'managed-instances',
  memorySize: '2048',
  managedInstancesMemoryGiBPerVCpu: '2',
} as const;

/** Tail latency within this of standard's counts as no slower: two runs of one setting differ this much on a busy host. */
const SAME_TAIL = 1.1;

const levelsOf = (ctx: PlanContext) => (ctx.quick ? QUICK_LEVELS : LEVELS);
export const stepName = (compute: Compute, level: number) => `${compute}-${level}`;
const computeLabel = (c: Compute) => (c === 'standard' ? 'standard Lambda' : 'Managed Instances');
const TODAY_ONLY = 'no seed article measured Lambda Managed Instances (GA 2025-11-30)';

/** The targets in the registry's order (core/lab-functions.ts), narrowed by --targets. */
const targetsOf = (ctx: PlanContext): Target[] => TARGETS.filter((t) => ctx.targets.includes(t));

function plan(ctx: PlanContext): StepPlan[] {
  const seed = ctx.quick ? QUICK_SEED : SEED;
  return COMPUTES.flatMap((compute) =>
    levelsOf(ctx).map(
      (level): StepPlan => ({
        name: stepName(compute, level),
        description: `every target on ${computeLabel(compute)}${compute === 'managed-instances' ? ' (1 vCPU, 2 GiB, 64 invocations at once per environment, 3 environments at start)' : ''}: ${seed} Persons seeded (not counted), then get at random among them, ${level} client(s) back to back, keep-alive on`,
        targets: targetsOf(ctx),
        variants: ['on'],
        operations: ['get'],
        durationS: ctx.durationS ?? (ctx.quick ? QUICK_S : DEFAULT_S),
        parallel: level,
        seedRecords: seed,
        // One environment per client on standard Lambda, as Lambda would start them; each target's
        // end once idle, so a laptop holds one target's hundred at a time.
        ...(compute === 'standard' && level > 10 ? { maxEnvironments: level, reclaimIdleS: RECLAIM_S } : {}),
        ...(compute === 'managed-instances' ? { context: { ...MI_CONTEXT } } : {}),
        todayOnly: TODAY_ONLY,
      }),
    ),
  );
}

/** One target on one compute at one level, as the step measured it. */
export interface Cell {
  readonly requests: number;
  readonly errors: number;
  readonly throughputPerSec: number;
  readonly clientP50: number | null;
  readonly clientP99: number | null;
  readonly dbP50: number | null;
  readonly dbP99: number | null;
  /** the most connections open at once at the database that carried the phase's requests */
  readonly connections: number | null;
  /** invocations that waited for an environment's init (REPORT lines with an Init Duration) */
  readonly coldStarts: number | null;
  /** $ per million requests, priced components only */
  readonly usdPerMillion: number | null;
  /** Lambda's part of it (requests, duration or instances) */
  readonly lambdaUsdPerMillion: number | null;
  /** price keys left out of the totals because their price is unverified */
  readonly unpriced: readonly string[];
  /** instance-hours per request, Managed Instances only */
  readonly instanceHoursPerRequest: number | null;
  readonly instanceType: string | null;
}

const INSTANCE_HOURS = 'lambda.managedInstances.instanceHours.';

export function cellOf(step: StepView | undefined, target: Target): Cell | null {
  const r = step?.row(target, 'on', 'get');
  if (!step || !r) return null;
  const cost = r.cost ?? null;
  const hours = cost?.units.find((u) => u.key.startsWith(INSTANCE_HOURS));
  return {
    requests: r.requests,
    errors: r.errors,
    throughputPerSec: r.throughputPerSec,
    clientP50: r.latencyMs?.p50 ?? null,
    clientP99: r.latencyMs?.p99 ?? null,
    dbP50: r.dbMs?.p50 ?? null,
    dbP99: r.dbMs?.p99 ?? null,
    connections: r.dbConnections?.peak ?? null,
    coldStarts: step.group(target, 'on', 'get')?.coldStarts.onDemandColdStarts ?? r.coldStarts,
    usdPerMillion: cost?.perMillion.total ?? null,
    lambdaUsdPerMillion: cost?.perMillion.lambda ?? null,
    unpriced: cost?.unpriced ?? [],
    instanceHoursPerRequest: hours && cost && cost.invocations > 0 ? hours.quantity / cost.invocations : null,
    instanceType: hours ? hours.key.slice(INSTANCE_HOURS.length) : null,
  };
}

const ms = (v: number | null) => (v === null ? '–' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const usd = (v: number | null) => (v === null ? '–' : v.toFixed(2));
const times = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/**
 * The instance-hour price (the instance and its management fee together) under which Managed
 * Instances cost less per request than standard Lambda at the throughput measured: standard's
 * Lambda $ per request less Managed Instances' priced part, over its instance-hours per request.
 */
export function breakEvenInstanceHourUsd(standard: Cell, managed: Cell): number | null {
  if (
    standard.lambdaUsdPerMillion === null ||
    managed.lambdaUsdPerMillion === null ||
    managed.instanceHoursPerRequest === null ||
    managed.instanceHoursPerRequest <= 0
  )
    return null;
  const perRequest = (standard.lambdaUsdPerMillion - managed.lambdaUsdPerMillion) / 1e6;
  return Math.max(0, perRequest / managed.instanceHoursPerRequest);
}

export interface Verdict {
  readonly target: Target;
  readonly choose: Compute | null;
  readonly why: string;
}

/** Which compute to choose for one database, from the cells at the highest level both ran. */
export function verdictOf(
  target: Target,
  cells: ReadonlyMap<string, Cell | null>,
  levels: readonly number[],
): Verdict {
  const level = [...levels]
    .reverse()
    .find((l) => cells.get(stepName('standard', l)) && cells.get(stepName('managed-instances', l)));
  if (level === undefined)
    return { target, choose: null, why: 'no level ran on both computes: nothing to compare' };
  const s = cells.get(stepName('standard', level)) as Cell;
  const m = cells.get(stepName('managed-instances', level)) as Cell;
  const at = `at ${level} client${level === 1 ? '' : 's'}`;
  const coldS = levels.reduce((n, l) => n + (cells.get(stepName('standard', l))?.coldStarts ?? 0), 0);
  const coldM = levels.reduce(
    (n, l) => n + (cells.get(stepName('managed-instances', l))?.coldStarts ?? 0),
    0,
  );
  const facts: string[] = [];
  if (s.clientP99 !== null && m.clientP99 !== null)
    facts.push(
      `client p99 ${ms(m.clientP99)} ms on Managed Instances against ${ms(s.clientP99)} ms (${times(m.clientP99, s.clientP99)}) ${at}`,
    );
  if (s.dbP99 !== null && m.dbP99 !== null)
    facts.push(`database p99 ${ms(m.dbP99)} against ${ms(s.dbP99)} ms`);
  if (s.connections !== null && m.connections !== null)
    facts.push(`${m.connections} connection(s) open at the database against ${s.connections}`);
  facts.push(`${coldM} cold start(s) against ${coldS} over the levels`);
  const even = breakEvenInstanceHourUsd(s, m);
  const cost =
    even === null
      ? 'cost not compared (a phase left no cost block)'
      : m.unpriced.length > 0
        ? `cheaper per request than standard's ${usd(s.usdPerMillion)} $/M only while an instance-hour of ${m.instanceType} with its management fee costs under $${even.toFixed(4)} at this throughput (${m.throughputPerSec.toFixed(0)}/s; its price is unverified here, so its $/M leaves the instances out)`
        : `${usd(m.usdPerMillion)} $/M against ${usd(s.usdPerMillion)} (break-even instance-hour $${even.toFixed(4)})`;
  if (m.errors > s.errors)
    return {
      target,
      choose: 'standard',
      why: `Managed Instances answered ${m.errors} error(s) ${at} (throttled: the environments scale asynchronously) against ${s.errors}; ${facts.join('; ')}; ${cost}`,
    };
  const tailRatio = s.clientP99 !== null && m.clientP99 !== null ? m.clientP99 / s.clientP99 : null;
  if (tailRatio !== null && tailRatio > SAME_TAIL)
    return {
      target,
      choose: 'standard',
      why: `slower at the tail on Managed Instances, whose invocations share an environment’s vCPU and connections: ${facts.join('; ')}; ${cost}`,
    };
  return {
    target,
    choose: 'managed-instances',
    why: `no slower at the tail (within ${SAME_TAIL}x) with ${m.connections !== null && s.connections !== null && m.connections < s.connections ? 'fewer connections at the database and ' : ''}no cold start waited for: ${facts.join('; ')}; ${cost}`,
  };
}

interface Metric {
  readonly name: string;
  readonly kind: RowKind;
  readonly statistic: string;
  readonly unit: string;
  readonly value: (c: Cell) => number | null;
  readonly why: string;
}

const METRICS: readonly Metric[] = [
  {
    name: 'client latency p50',
    kind: 'duration',
    statistic: 'p50',
    unit: 'ms',
    value: (c) => c.clientP50,
    why: 'Artillery’s time to first byte through the API',
  },
  {
    name: 'client latency p99',
    kind: 'duration',
    statistic: 'p99',
    unit: 'ms',
    value: (c) => c.clientP99,
    why: 'Artillery’s time to first byte through the API',
  },
  {
    name: 'database time p50',
    kind: 'db',
    statistic: 'p50',
    unit: 'ms',
    value: (c) => c.dbP50,
    why: 'the handler’s own timing of its database call',
  },
  {
    name: 'database time p99',
    kind: 'db',
    statistic: 'p99',
    unit: 'ms',
    value: (c) => c.dbP99,
    why: 'the handler’s own timing of its database call',
  },
  {
    name: 'connections open at the database',
    kind: 'connection',
    statistic: 'max',
    unit: 'connections',
    value: (c) => c.connections,
    why: 'the most connections open at once that carried the phase’s requests, counted by the network model every function’s connection passes through (local/network/delay-layer.ts)',
  },
  {
    name: 'cold starts',
    kind: 'count',
    statistic: 'total',
    unit: 'invocations',
    value: (c) => c.coldStarts,
    why: 'invocations that waited for an environment’s init (REPORT lines with an Init Duration); Managed Instances start environments ahead of traffic and never for an invocation',
  },
  {
    name: '$ per million requests',
    kind: 'count',
    statistic: 'total',
    unit: '$/M',
    value: (c) => c.usdPerMillion,
    why: 'Lambda, API Gateway and the database, priced from the price file (runs/run-cost.ts); on Managed Instances Lambda’s part is the request charge and the instances’ hours with the management fee, and an unverified instance price is left out and named',
  },
];

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const out: ExperimentRow[] = [];
  const table: string[][] = [];
  const verdicts: string[][] = [];
  const levels = levelsOf(ctx);
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const quick = ctx.quick
    ? `--quick: ${QUICK_LEVELS.join(' and ')} clients, ${QUICK_SEED} Persons seeded, the targets one after another, as in the default run`
    : '';
  for (const t of targetsOf(ctx)) {
    const cells = new Map<string, Cell | null>();
    for (const compute of COMPUTES) {
      for (const level of levels) {
        const name = stepName(compute, level);
        const cell = cellOf(steps.get(name), t);
        cells.set(name, cell);
        const label = `${targetLabel(t)}, ${computeLabel(compute)}, ${level} client${level === 1 ? '' : 's'}`;
        for (const m of METRICS) {
          const unpriced = m.unit === '$/M' && cell && cell.unpriced.length > 0;
          out.push(
            row({
              metric: `${label}: ${m.name}`,
              kind: m.kind,
              statistic: m.statistic,
              article: null,
              articleText: 'no article: a question of today',
              measured: cell ? m.value(cell) : null,
              unit: m.unit,
              why: [m.why, unpriced ? `unpriced and left out: ${cell.unpriced.join(', ')}` : '', where, quick]
                .filter(Boolean)
                .join('; '),
              noMeasure: cell
                ? m.unit === 'connections'
                  ? 'the run counted no connections (against a deployed stack: the database’s own metrics)'
                  : 'the phase produced no figure for it'
                : `the step ${name} did not run or the target’s phase failed`,
              role: 'setting',
            }),
          );
        }
        table.push([
          targetLabel(t),
          computeLabel(compute),
          String(level),
          cell ? String(cell.requests) : '–',
          cell ? String(cell.errors) : '–',
          ms(cell?.clientP50 ?? null),
          ms(cell?.clientP99 ?? null),
          ms(cell?.dbP50 ?? null),
          ms(cell?.dbP99 ?? null),
          cell?.connections === null || !cell ? '–' : String(cell.connections),
          cell?.coldStarts === null || !cell ? '–' : String(cell.coldStarts),
          cell
            ? `${usd(cell.usdPerMillion)}${cell.unpriced.length > 0 ? ' + instances (unpriced)' : ''}`
            : '–',
        ]);
      }
    }
    const v = verdictOf(t, cells, levels);
    verdicts.push([targetLabel(t), v.choose === null ? '–' : computeLabel(v.choose), v.why]);
  }
  const tables: ExperimentTable[] = [
    {
      title: `Standard Lambda against Managed Instances, get among seeded Persons, keep-alive on, N clients back to back${quick ? `; ${quick}` : ''}: client and database ms, the most connections open at the database, cold starts, $ per million requests`,
      columns: [
        'Target',
        'Compute',
        'Clients',
        'Requests',
        'Errors',
        'Client p50',
        'Client p99',
        'DB p50',
        'DB p99',
        'Connections at the DB',
        'Cold starts',
        '$/M requests',
      ],
      rows: table,
      terminal: true,
    },
    {
      title: `Which compute to choose for each database, from the figures above at the highest level both ran (Managed Instances when their client p99 is within ${SAME_TAIL}x of standard’s and they answered no more errors)`,
      columns: ['Target', 'Choose', 'Why'],
      rows: verdicts,
      terminal: true,
    },
  ];
  return { rows: out, tables };
}

export const managedInstances: ExperimentDefinition = {
  name: 'managed-instances',
  article: NO_ARTICLE,
  title: 'Standard Lambda against Lambda Managed Instances, for each database',
  summary:
    'get on every target on standard Lambda and on Managed Instances at 1, 10 and 100 clients (closed loop; --quick: 1 and 10): client and database p50 and p99, connections open at the database, cold starts, $ per million requests, and which compute to choose',
  articleTargets: TARGETS,
  plan,
  rows: (steps, ctx) => rows(steps, ctx),
};
