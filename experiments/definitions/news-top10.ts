/**
 * `news-top10` (dynamodb-faunadb-upstash-latency-hi.txt): the query workload (the newest
 * Persons of a type, as the news site read its top 10) on DynamoDB, Redis and DSQL, with
 * cold and warm clients apart (timing.coldStart). The article: p99 Upstash ~50 ms,
 * DynamoDB ~200 ms, FaunaDB ~900 ms; warm ~1 ms Redis, ~7 ms DynamoDB.
 */
import { TARGET_INFO, type Target } from '../../core/lab-functions';
import { NEWS_TOP10_FIGURES, SEEDS } from '../../report/article-figures';
import type { ExperimentRow } from '../../report/report-model';
import { LOCAL_MODEL_NOTE, missingTargetRow, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepView } from '../types';

const STEP = 'query';
const TARGETS: readonly Target[] = ['redis', 'dynamodb', 'dsql'];
/** Workers: each spins up an environment, so each run has this many cold clients per function. */
const PARALLEL = { quick: 4, full: 8 } as const;

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  const out: ExperimentRow[] = [];
  const f = NEWS_TOP10_FIGURES;
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  for (const t of TARGETS.filter((x) => ctx.targets.includes(x))) {
    const label = TARGET_INFO[t].label;
    const all = step?.calls({ target: t, variant: 'on', phase: 'query' }) ?? [];
    const cold = all.filter((c) => c.coldStart);
    const warm = all.filter((c) => !c.coldStart);
    const ladder = (calls: typeof all) => step?.ladder(calls.map((c) => c.dbMs)) ?? null;
    const allL = ladder(all);
    const coldL = ladder(cold);
    const warmL = ladder(warm);
    const coldShare = all.length === 0 ? 0 : cold.length / all.length;
    const articleP99 = t === 'redis' ? f.p99Ms.redis : t === 'dynamodb' ? f.p99Ms.dynamodb : null;
    const articleWarm = t === 'redis' ? f.warmMs.redis : t === 'dynamodb' ? f.warmMs.dynamodb : null;
    const who = t === 'redis' ? 'Upstash' : label;
    out.push(
      row({
        metric: `${label} query: database time p99, cold and warm clients together`,
        kind: 'db',
        statistic: 'p99',
        article: articleP99,
        articleText: articleP99 === null ? 'not in the article' : `~${articleP99} ms (${who})`,
        measured: allL?.p99,
        unit: 'ms',
        why: `the p99 follows the share of cold clients: the article’s site had sparse traffic, so most calls built a client; here ${cold.length} of ${all.length} calls were cold (${(coldShare * 100).toFixed(1)} %); ${where}`,
      }),
      row({
        metric: `${label} query: warm clients, database time p50`,
        kind: 'db',
        statistic: 'p50',
        article: articleWarm,
        articleText:
          articleWarm === null ? 'not in the article' : `~${articleWarm} ms (${who}, page refreshed)`,
        measured: warmL?.p50,
        unit: 'ms',
        why: `a warm client on a kept connection pays one round trip (${ctx.where === 'local' ? 'the network model’s' : 'the region’s'}) plus the engine’s time; the article’s ~1 ms Redis was in-region with no TLS set-up to pay`,
      }),
      row({
        metric: `${label} query: cold clients (first call of an environment), database time p50`,
        kind: 'db',
        statistic: 'p50',
        article: null,
        articleText: 'no figure: the article says cold clients make most of the tail',
        measured: coldL?.p50,
        unit: 'ms',
        why: `a cold client opens its connection (TCP + TLS${t === 'dsql' ? ' + PostgreSQL start-up and token' : ''}) inside the timed call; ${cold.length} cold call(s)`,
      }),
    );
  }
  out.push(
    missingTargetRow(
      'faunadb',
      'FaunaDB query: database time p99',
      f.p99Ms.faunadb,
      '~900 ms (FaunaDB)',
      'ms',
      { kind: 'db', statistic: 'p99' },
    ),
  );
  return { rows: out };
}

export const newsTop10: ExperimentDefinition = {
  name: 'news-top10',
  article: SEEDS.newsTop10,
  title: 'A news site’s top-10 query: cold and warm clients',
  summary:
    'create then the query workload on Redis, DynamoDB and DSQL, several workers, cold and warm clients apart',
  articleTargets: ['redis', 'dynamodb', 'faunadb', 'dsql'],
  plan: (ctx) => [
    {
      name: STEP,
      description: `create (the Persons to list), then query the newest of a type; ${ctx.quick ? PARALLEL.quick : PARALLEL.full} workers back to back, so each function starts that many environments (cold clients)`,
      targets: TARGETS.filter((t) => ctx.targets.includes(t)),
      variants: ['on'],
      operations: ['create', 'query'],
      durationS: ctx.durationS ?? (ctx.quick ? 2 : 20),
      parallel: ctx.quick ? PARALLEL.quick : PARALLEL.full,
      // The article's functions had 1,024 MB; memory is CPU, and CPU is what a cold client spends.
      memoryMb: 1024,
    },
  ],
  rows,
};
