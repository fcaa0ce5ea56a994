/**
 * `redis-vs-others` (serverless-redis-vs-faunadb-histograms.txt): read (get), insert
 * (create), overwrite and update at parallelism 1, 10 and 100, every latency in an HDR
 * histogram, throughput per minute. The article compared Lambda Store (now Upstash Redis)
 * with FaunaDB; FaunaDB is shut down, so its rows keep the article's figures and no
 * measurement, and Redis is compared with every other target the lab has.
 */
import { type Operation, TARGETS, type Target, targetLabel } from '../../core/lab-functions';
import {
  HISTOGRAM_FIGURES,
  HISTOGRAM_PERCENTILES,
  type HistogramFigure,
  type HistogramOperation,
  type HistogramParallelism,
  SEEDS,
} from '../../report/article-figures';
import type { ExperimentRow, ExperimentTable } from '../../report/report-model';
import { LOCAL_MODEL_NOTE, missingTargetRow, row } from '../rows';
import type {
  ColdStartView,
  DirectRedisView,
  ExperimentDefinition,
  ExperimentOutcome,
  PlanContext,
  StepView,
  TuningView,
} from '../types';

/** The article's scenario names, in its order, as the lab's operations. */
const SCENARIOS: readonly { readonly op: HistogramOperation; readonly name: string }[] = [
  { op: 'get', name: 'read' },
  { op: 'create', name: 'insert' },
  { op: 'overwrite', name: 'overwrite' },
  { op: 'update', name: 'update' },
];
/** The lab runs create first: get, overwrite and update work on the Persons it wrote. */
const OPERATIONS: readonly Operation[] = ['create', 'get', 'overwrite', 'update'];
const ARTICLE_LEVELS: readonly HistogramParallelism[] = [1, 10, 100];
const QUICK_LEVELS: readonly number[] = [1, 5];

const levelsOf = (ctx: PlanContext) => (ctx.quick ? QUICK_LEVELS : ARTICLE_LEVELS);
const stepName = (level: number) => `parallel-${level}`;
const isArticleLevel = (n: number): n is HistogramParallelism =>
  (ARTICLE_LEVELS as readonly number[]).includes(n);

/**
 * Redis first, then every other target of the registry (core/lab-functions.ts): a new target
 * joins. Read when a plan is made, so a target registered after this module loaded is in it.
 */
const order = (): readonly Target[] => ['redis', ...TARGETS.filter((t) => t !== 'redis')];

const DIRECT = 'direct-client';
const directLevelsOf = (ctx: PlanContext) => (ctx.quick ? QUICK_LEVELS : ARTICLE_LEVELS);
const DIRECT_NOTE =
  'as the article measured it: a Redis client straight to the database (the article’s Go client on EC2 beside Lambda Store, ours in the experiment’s process through the network model’s TLS front), each scenario on its own (insertion into an empty database; read, overwrite and update after 1,000 inserts of the 12-field Product)';
const DIRECT_AWS =
  'the direct client reaches the local lab’s Redis only; against a deployed cache, run a client in its VPC';

function articleFigure(op: HistogramOperation, level: number, system: 'lambdaStore' | 'faunadb') {
  return isArticleLevel(level) ? HISTOGRAM_FIGURES.scenarios[op][level][system] : undefined;
}

const fmt = (v: number | null | undefined) =>
  v === null || v === undefined || !Number.isFinite(v) ? '–' : v >= 100 ? v.toFixed(1) : v.toFixed(3);

interface Point {
  readonly metric: string;
  readonly ladderIndex: number | null;
  /** the rung's percentile (HISTOGRAM_PERCENTILES) */
  readonly percentile: number;
  readonly articleLabel: string;
}

/**
 * The article's rungs (HdrHistogram's halving ladder: 87.5, 93.75, 99.21875 ...), ours computed
 * at the same percentiles from the same calls, never the nearest of p90, p95, p99.
 */
const POINTS: readonly Point[] = [
  { metric: 'p50', ladderIndex: 0, percentile: 50, articleLabel: 'p50' },
  { metric: 'p75', ladderIndex: 1, percentile: 75, articleLabel: 'p75' },
  { metric: 'p87.5', ladderIndex: 2, percentile: 87.5, articleLabel: 'p87.5' },
  { metric: 'p93.75', ladderIndex: 3, percentile: 93.75, articleLabel: 'p93.75' },
  { metric: 'p99.22', ladderIndex: 4, percentile: 99.21875, articleLabel: 'p99.22' },
  { metric: 'p99.9', ladderIndex: 5, percentile: 99.902344, articleLabel: 'p99.9' },
  { metric: 'max', ladderIndex: 6, percentile: 100, articleLabel: 'max' },
];

function articleRungText(f: HistogramFigure | undefined, p: Point, who: string, level: number): string {
  if (!f || p.ladderIndex === null) return `none at ${level} workers (the article ran 1, 10 and 100)`;
  const rung = p.ladderIndex === 5 && f.sixthPercentile ? `p${f.sixthPercentile}` : p.articleLabel;
  return `${who} ${rung}`;
}

/** What --quick or --duration changed from the article's shape, or ''. */
function quickNoteOf(ctx: PlanContext): string {
  return ctx.quick
    ? `--quick: ${QUICK_LEVELS.join(' and ')} connections or workers for ${ctx.durationS ?? QUICK_DIRECT_S} s (direct) or ${ctx.durationS ?? QUICK_S} s (through Lambda) each instead of the article’s 1, 10 and 100 for 60 s; ${QUICK_SEED} Persons seeded through Lambda`
    : ctx.durationS !== undefined && ctx.durationS !== HISTOGRAM_FIGURES.scenarioS
      ? `--duration ${ctx.durationS}: ${ctx.durationS} s a phase instead of the article’s ${HISTOGRAM_FIGURES.scenarioS} s (fewer samples: the top rungs rest on fewer calls)`
      : '';
}

function rows(
  steps: ReadonlyMap<string, StepView>,
  ctx: PlanContext,
  _tunings?: ReadonlyMap<string, TuningView>,
  _coldStarts?: ReadonlyMap<string, ColdStartView>,
  directs: ReadonlyMap<string, DirectRedisView> = new Map(),
): ExperimentOutcome {
  const out: ExperimentRow[] = [];
  const ladders: string[][] = [];
  const articleLadders: string[][] = [];
  const targets = order().filter((t) => ctx.targets.includes(t));
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const quickNote = quickNoteOf(ctx);
  for (const level of levelsOf(ctx)) {
    const step = steps.get(stepName(level));
    for (const { op } of SCENARIOS) {
      for (const t of targets) {
        const calls = step?.calls({ target: t, variant: 'on', phase: op }) ?? [];
        const dbMs = calls.map((c) => c.dbMs);
        const clientMs = calls.flatMap((c) => (c.clientMs === null ? [] : [c.clientMs]));
        // Our values at the article's rungs, from the same HDR precision.
        const rungsOf = (values: number[]) => step?.rungs(values, HISTOGRAM_PERCENTILES) ?? [];
        const db = rungsOf(dbMs);
        const client = rungsOf(clientMs);
        const perMinute = (step?.row(t, 'on', op)?.throughputPerSec ?? Number.NaN) * 60;
        const label = targetLabel(t);
        // Through the API and Lambda: a table of its own, not compared with the article's direct client.
        for (const [layer, values, l] of [
          ['database', dbMs, db],
          ['client', clientMs, client],
        ] as const) {
          ladders.push([
            label,
            op,
            String(level),
            layer,
            String(values.length),
            ...HISTOGRAM_PERCENTILES.map((_, i) => fmt(l[i])),
            Number.isFinite(perMinute) ? perMinute.toFixed(0) : '–',
          ]);
        }
      }
    }
  }
  const direct = directs.get(DIRECT);
  for (const level of directLevelsOf(ctx)) {
    for (const { op, name } of SCENARIOS) {
      const r = direct?.results.find((x) => x.op === op && x.level === level);
      const ls = articleFigure(op, level, 'lambdaStore');
      const noMeasure =
        ctx.where === 'aws'
          ? DIRECT_AWS
          : !ctx.targets.includes('redis')
            ? 'redis is not among the targets run'
            : 'the direct-client step did not finish (see the warnings)';
      const conditions = [DIRECT_NOTE, where, quickNote].filter(Boolean).join('; ');
      for (const p of POINTS) {
        // Redis's service time was fitted to Lambda Store's 1-client read p50 and p99.22.
        const fitted = op === 'get' && level === 1 && (p.metric === 'p50' || p.metric === 'p99.22');
        out.push(
          row({
            metric: `${name} (${op}), ${level} connection${level > 1 ? 's' : ''}, Redis, client straight to the database: latency ${p.metric}`,
            kind: 'db',
            statistic: p.metric,
            article: ls && p.ladderIndex !== null ? ls.ladderMs[p.ladderIndex] : null,
            articleText: articleRungText(ls, p, 'Lambda Store', level),
            measured: r && p.ladderIndex !== null ? r.ladderMs[p.ladderIndex] : null,
            unit: 'ms',
            why: conditions,
            noMeasure,
            ...(fitted
              ? {
                  role: 'calibration' as const,
                  cause:
                    'the in-region profile’s Redis service time (p50 0.36 / p99 0.44 ms) is this figure less a same-AZ round trip (local/network/profiles.ts)',
                }
              : {}),
          }),
        );
      }
      out.push(
        row({
          metric: `${name} (${op}), ${level} connection${level > 1 ? 's' : ''}, Redis, client straight to the database: requests per minute`,
          kind: 'throughput',
          statistic: 'total per minute',
          article: ls?.perMinute ?? null,
          articleText: ls ? 'Lambda Store, completed in its minute' : `none at ${level} connections`,
          measured: r?.perMinute,
          unit: '/min',
          why: [
            'N connections back to back, each waiting for its answer: throughput is N over the latency, so it follows the ladder',
            conditions,
          ].join('; '),
          noMeasure,
        }),
      );
    }
  }
  for (const level of levelsOf(ctx)) {
    for (const { op, name } of SCENARIOS) {
      const fauna = articleFigure(op, level, 'faunadb');
      for (const p of [POINTS[0], POINTS[3]]) {
        out.push(
          missingTargetRow(
            'faunadb',
            `${name} (${op}), ${level} worker${level > 1 ? 's' : ''}, FaunaDB: database time ${p.metric}`,
            fauna && p.ladderIndex !== null ? fauna.ladderMs[p.ladderIndex] : null,
            articleRungText(fauna, p, 'FaunaDB', level),
            'ms',
            { kind: 'db', statistic: p.metric },
          ),
        );
      }
      out.push(
        missingTargetRow(
          'faunadb',
          `${name} (${op}), ${level} worker${level > 1 ? 's' : ''}, FaunaDB: requests per minute`,
          fauna?.perMinute ?? null,
          fauna ? 'FaunaDB, completed in its minute' : `none at ${level} workers`,
          '/min',
          { kind: 'throughput', statistic: 'total per minute' },
        ),
      );
    }
  }
  for (const { op, name } of SCENARIOS) {
    for (const level of ARTICLE_LEVELS) {
      for (const [who, f] of [
        ['Lambda Store', HISTOGRAM_FIGURES.scenarios[op][level].lambdaStore],
        ['FaunaDB (service shut down 2025-05-30)', HISTOGRAM_FIGURES.scenarios[op][level].faunadb],
      ] as const) {
        articleLadders.push([
          who,
          `${name} (${op})`,
          String(level),
          ...f.ladderMs.map((v) => fmt(v)),
          String(f.perMinute),
        ]);
      }
    }
  }
  const tables: ExperimentTable[] = [
    {
      title: `This run through the API and Lambda (not compared: the article’s client called the database directly), every target: HDR ladders at the article’s rungs (keep-alive on), the database time the handler measured and the client latency, ms; read, overwrite and update pick among ${seedsOf(ctx)} seeded Persons; at most the pool’s environments at once${quickNoteOf(ctx) ? `; ${quickNoteOf(ctx)}` : ''}`,
      columns: [
        'Target',
        'Operation',
        'Workers',
        'Layer',
        'Count',
        'p50',
        'p75',
        'p87.5',
        'p93.75',
        'p99.22',
        'p99.9',
        'max',
        'Requests/min',
      ],
      rows: ladders,
    },
    {
      title: `The article's ladders (${HISTOGRAM_FIGURES.source}), ms at p${HISTOGRAM_PERCENTILES.join(', p')}`,
      columns: [
        'System',
        'Scenario',
        'Workers',
        'p50',
        'p75',
        'p87.5',
        'p93.75',
        'p99.22',
        'p99.9',
        'max',
        'Requests/min',
      ],
      rows: articleLadders,
    },
  ];
  return { rows: out, tables };
}

const QUICK_S = 15;
const QUICK_DIRECT_S = 5;
/** --quick seeds fewer: each step (a lab of its own) seeds every target again. */
const QUICK_SEED = 100;
const seedsOf = (ctx: PlanContext) => (ctx.quick ? QUICK_SEED : HISTOGRAM_FIGURES.seededRecords);

export const redisVsOthers: ExperimentDefinition = {
  name: 'redis-vs-others',
  article: SEEDS.histograms,
  title: 'Serverless Redis against the other targets: full latency ladders and throughput',
  summary:
    'create, get, overwrite, update on every target at 1, 10, 100 workers (closed loop; --quick: 1 and 5), reads among 1,000 seeded Persons picked at random, HDR ladders and requests per minute',
  articleTargets: ['redis', 'faunadb', 'dynamodb', 'qldb', 'dsql'],
  plan: (ctx) =>
    levelsOf(ctx).map((level) => ({
      name: stepName(level),
      description: `every target: ${seedsOf(ctx)} Persons seeded (not counted), then create, and get, overwrite and update at random among the seeded, ${level} worker(s) back to back, keep-alive on`,
      targets: order().filter((t) => ctx.targets.includes(t)),
      variants: ['on'],
      operations: [...OPERATIONS],
      // The article ran 60 s a scenario.
      durationS: ctx.durationS ?? (ctx.quick ? QUICK_S : HISTOGRAM_FIGURES.scenarioS),
      parallel: level,
      // "1000 objects inserted initially", then read, overwritten, updated at random among them.
      seedRecords: seedsOf(ctx),
    })),
  directs: (ctx) => [
    {
      name: DIRECT,
      description: `a Redis client straight to the database, no API and no Lambda, at ${directLevelsOf(ctx).join(', ')} connections, ${ctx.durationS ?? (ctx.quick ? QUICK_DIRECT_S : HISTOGRAM_FIGURES.scenarioS)} s a scenario, each on its own (insert into an empty database; read, overwrite, update after ${HISTOGRAM_FIGURES.seededRecords} inserts)`,
      levels: directLevelsOf(ctx),
      operations: SCENARIOS.map((x) => x.op),
      durationS: ctx.durationS ?? (ctx.quick ? QUICK_DIRECT_S : HISTOGRAM_FIGURES.scenarioS),
      seedRecords: HISTOGRAM_FIGURES.seededRecords,
      seed: 1,
    },
  ],
  rows,
};
