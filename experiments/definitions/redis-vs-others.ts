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
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepView } from '../types';

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

const LAYER_NOTE =
  'ours is the database time the handler measured inside Lambda, the article’s a Go client on EC2 calling the database directly (the ladders table also has our client latency, through the API and Lambda)';

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

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const out: ExperimentRow[] = [];
  const ladders: string[][] = [];
  const articleLadders: string[][] = [];
  const targets = order().filter((t) => ctx.targets.includes(t));
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const quickNote = ctx.quick
    ? `--quick: ${QUICK_LEVELS.join(' and ')} workers for ${ctx.durationS ?? QUICK_S} s each instead of the article’s 1, 10 and 100 for 60 s, ${QUICK_SEED} Persons seeded instead of ${HISTOGRAM_FIGURES.seededRecords}`
    : ctx.durationS !== undefined && ctx.durationS !== HISTOGRAM_FIGURES.scenarioS
      ? `--duration ${ctx.durationS}: ${ctx.durationS} s a phase instead of the article’s ${HISTOGRAM_FIGURES.scenarioS} s (fewer samples: the top rungs rest on fewer calls)`
      : '';
  // Read, overwrite and update pick among the seeded Persons, as the article's benchmarks did.
  const pickNote = (op: HistogramOperation) =>
    op === 'create'
      ? ''
      : `each request names one of the ${seedsOf(ctx)} Persons seeded before the step, picked uniformly at random (seeded, repeatable), as the article’s ${seedsOf(ctx) === HISTOGRAM_FIGURES.seededRecords ? '' : `${HISTOGRAM_FIGURES.seededRecords} `}inserted objects`;
  for (const level of levelsOf(ctx)) {
    const step = steps.get(stepName(level));
    for (const { op, name } of SCENARIOS) {
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
        const ls = t === 'redis' ? articleFigure(op, level, 'lambdaStore') : undefined;
        for (const p of POINTS) {
          out.push(
            row({
              metric: `${name} (${op}), ${level} worker${level > 1 ? 's' : ''}, ${label}: database time ${p.metric}`,
              kind: 'db',
              statistic: p.metric,
              article: ls && p.ladderIndex !== null ? ls.ladderMs[p.ladderIndex] : null,
              articleText:
                t === 'redis'
                  ? articleRungText(ls, p, 'Lambda Store', level)
                  : 'not in the article (it compared Lambda Store with FaunaDB)',
              measured: p.ladderIndex === null ? null : db[p.ladderIndex],
              unit: 'ms',
              why: [LAYER_NOTE, pickNote(op), where, quickNote].filter(Boolean).join('; '),
            }),
          );
        }
        out.push(
          row({
            metric: `${name} (${op}), ${level} worker${level > 1 ? 's' : ''}, ${label}: requests per minute`,
            kind: 'throughput',
            statistic: 'total per minute',
            article: ls?.perMinute ?? null,
            articleText: ls
              ? 'Lambda Store, completed in its minute'
              : t === 'redis'
                ? `none at ${level} workers`
                : 'not in the article',
            measured: perMinute,
            unit: '/min',
            why: [
              'each of our requests goes through the API and a Lambda function (at most the pool’s environments at once), the article’s straight to the database',
              quickNote,
            ]
              .filter(Boolean)
              .join('; '),
          }),
        );
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
      title:
        'This run: HDR ladders at the article’s rungs (keep-alive on), database time and client latency, ms',
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
  rows,
};
