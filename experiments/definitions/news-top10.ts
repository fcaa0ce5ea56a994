/**
 * `news-top10` (dynamodb-faunadb-upstash-latency-hi.txt): the article's news site. Its page
 * queried the ten most viewed stories (a sorted set on Upstash, a GSI sorted by view count on
 * DynamoDB, an index on FaunaDB) and updated the counts as stories were read; it timed the
 * query alone inside the function, at 1,024 MB. Its traffic was sparse: most page requests met
 * a function that had to build its client again, which made the tail (p99: Upstash ~50 ms,
 * DynamoDB ~200 ms, FaunaDB ~900 ms); a page refreshed at once showed the warm figures (~1 ms
 * Redis, ~7 ms DynamoDB).
 *
 * Here: create (the stories), view (readers read them: each read counts a view), then top10
 * in sparse bursts (an open loop at a low rate, with pauses longer than the engines' idle
 * timeout and the host's reclaim window, so the first request of each burst meets a cold
 * environment and builds its client again, as a reclaimed Lambda environment does), on Redis, DynamoDB
 * and DSQL. The rows compare the top-10 query's database time (the timing block's dbMs, the
 * article's perf_hooks span) at the article's statistics, with the share of requests that met
 * a cold start or a new connection beside them.
 */
import { type Target, targetLabel } from '../../core/lab-functions';
import { NEWS_TOP10_FIGURES, SEEDS } from '../../report/article-figures';
import type { ExperimentRow } from '../../report/report-model';
import { LOCAL_MODEL_NOTE, mean, missingTargetRow, row } from '../rows';
import type {
  Call,
  ExperimentDefinition,
  ExperimentOutcome,
  PlanContext,
  StepPlan,
  StepView,
} from '../types';

const STEP = 'news-site';
const TARGETS: readonly Target[] = ['redis', 'dynamodb', 'dsql'];

/**
 * The site's traffic. Readers arrive at `ratePerS` (open loop); the page requests (top10) come
 * in bursts of `activeS` with `pauseS` of no traffic between, longer than `idleTimeoutS`, after
 * which the local engines have closed the functions' idle connections (as Upstash and DynamoDB
 * close idle ones), and longer than `reclaimIdleS`, after which the host has ended the idle
 * execution environment (as Lambda reclaims idle ones, after minutes, here compressed with the
 * pauses): each burst's first request is a cold start that builds its client again.
 */
export const NEWS_SHAPE = {
  full: { durationS: 30, ratePerS: 1, activeS: 3, pauseS: 12, idleTimeoutS: 10, reclaimIdleS: 10 },
  quick: { durationS: 2, ratePerS: 2, activeS: 1, pauseS: 3, idleTimeoutS: 2, reclaimIdleS: 2 },
} as const;

/** Lambda's execution environment lifecycle: the shutdown phase ends environments it no longer needs. */
const LIFECYCLE_DOC = 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html';

/** A call that paid for a fresh client: the environment's first (cold start) or a new connection. */
const fresh = (c: Call) => c.coldStart || c.newConnection;

function percent(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${((part / whole) * 100).toFixed(0)} %`;
}

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  const out: ExperimentRow[] = [];
  const f = NEWS_TOP10_FIGURES;
  const shape = ctx.quick ? NEWS_SHAPE.quick : NEWS_SHAPE.full;
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const traffic = `${ctx.durationS ?? shape.durationS} s of top-10 requests at ${shape.ratePerS}/s in ${shape.activeS} s bursts with ${shape.pauseS} s pauses${ctx.where === 'local' ? ` (engines drop connections idle ${shape.idleTimeoutS} s; the host ends environments idle ${shape.reclaimIdleS} s)` : ''}`;
  const reclaim =
    ctx.where === 'local'
      ? `the host ends an execution environment idle ${shape.reclaimIdleS} s, as Lambda’s shutdown phase reclaims idle ones (${LIFECYCLE_DOC}; Lambda takes minutes, compressed here with the pauses), so each burst’s first request is a cold start`
      : 'Lambda reclaims idle environments after minutes: with pauses this short, a burst may still meet a warm one';
  for (const t of TARGETS.filter((x) => ctx.targets.includes(x))) {
    const label = targetLabel(t);
    const calls = step?.calls({ target: t, variant: 'on', phase: 'top10' }) ?? [];
    const cold = calls.filter((c) => c.coldStart);
    const fresher = calls.filter(fresh);
    const warm = calls.filter((c) => !fresh(c));
    const ladder = (cs: readonly Call[]) => step?.ladder(cs.map((c) => c.dbMs)) ?? null;
    const share = calls.length === 0 ? null : (fresher.length / calls.length) * 100;
    const shareText = `${fresher.length} of ${calls.length} requests met a cold start or a new connection (${percent(fresher.length, calls.length)}; cold starts ${cold.length})`;
    const who = t === 'redis' ? 'Upstash' : label;
    const articleP99 = t === 'redis' ? f.p99Ms.redis : t === 'dynamodb' ? f.p99Ms.dynamodb : null;
    const articleWarm = t === 'redis' ? f.warmMs.redis : t === 'dynamodb' ? f.warmMs.dynamodb : null;
    const articleRequests =
      t === 'redis' ? f.requestsPerQuery.redis : t === 'dynamodb' ? f.requestsPerQuery.dynamodb : null;
    const query =
      t === 'redis'
        ? 'ZREVRANGE ... WITHSCORES then MGET of the ten records'
        : t === 'dynamodb'
          ? 'one Query of the sparse TopStories GSI (partition Section, sort Views), ScanIndexForward false, Limit 10'
          : 'SELECT ... ORDER BY views DESC LIMIT 10 on the person_by_views index';
    out.push(
      row({
        metric: `${label} top 10: query time p99, every request`,
        kind: 'db',
        statistic: 'p99',
        article: articleP99,
        articleText: articleP99 === null ? 'not in the article' : `~${articleP99} ms (${who})`,
        measured: ladder(calls)?.p99,
        unit: 'ms',
        why: `a p99 is set by the requests that built a client: ${shareText}. The article’s site was sparser still: its visits were further apart than its bursts, so most requests met a reclaimed environment; here ${reclaim}; ${traffic}; ${where}`,
      }),
      row({
        metric: `${label} top 10: query time p50, warm client (kept connection, not the environment’s first)`,
        kind: 'db',
        statistic: 'p50',
        article: articleWarm,
        articleText:
          articleWarm === null
            ? 'not in the article'
            : `~${articleWarm} ms (${who}, a page refreshed at once)`,
        measured: ladder(warm)?.p50,
        unit: 'ms',
        why: `a warm query pays its round trips (${t === 'redis' ? 'two here, one in the article' : 'one'}) at ${ctx.where === 'local' ? 'the network model’s' : 'the region’s'} round-trip time plus the engine’s work${articleWarm === null ? '' : '; the article’s figure is one observed refresh in the same region'}; ${where}`,
      }),
      row({
        metric: `${label} top 10: query time p50, fresh client (cold start or new connection)`,
        kind: 'db',
        statistic: 'p50',
        article: null,
        articleText: 'no figure: the article says fresh clients make most of its histogram',
        measured: ladder(fresher)?.p50,
        unit: 'ms',
        why: `the connection (TCP + TLS${t === 'dsql' ? ' + PostgreSQL start-up and token' : t === 'redis' ? ' + AUTH' : ''}) is opened inside the timed query; ${fresher.length} such request(s)`,
      }),
      row({
        metric: `${label} top 10: requests that met a cold start or a new connection`,
        kind: 'count',
        statistic: 'share',
        article: null,
        articleText: 'no number: “most of the time” the function built its connection again',
        measured: share,
        unit: '%',
        why: `${shareText}, from each request’s timing block (coldStart, newConnection); ${reclaim}; the others in a burst reuse its environment and connection`,
      }),
      row({
        metric: `${label} top 10: database round trips per request`,
        kind: 'count',
        statistic: 'mean',
        article: articleRequests,
        articleText:
          articleRequests === null
            ? 'not in the article'
            : t === 'redis'
              ? '1 (ZREVRANGE: each story’s JSON was the set member)'
              : '1 (one GSI Query)',
        measured: mean(warm.map((c) => c.dbRoundTrips).filter((n): n is number => n !== null)),
        unit: 'round trips',
        why: `warm requests; the lab’s query: ${query}${t === 'redis' ? ' (records kept apart from the counts, so a second round trip)' : ''}`,
      }),
    );
  }
  out.push(
    missingTargetRow(
      'faunadb',
      'FaunaDB top 10: query time p99, every request',
      f.p99Ms.faunadb,
      '~900 ms (FaunaDB)',
      'ms',
      {
        kind: 'db',
        statistic: 'p99',
      },
    ),
  );
  return {
    rows: out,
    notReproduced: [
      {
        figure: `the article's ${NEWS_TOP10_FIGURES.stories.toLocaleString('en-US')} stories in each database`,
        reason:
          'the create phase writes the stories the run reads; bulk seeding of the article’s count is not built yet',
      },
      {
        figure: `the warm figures a job fetching the site every ${NEWS_TOP10_FIGURES.keepWarmEveryS} s saw`,
        reason: 'no keep-warm step yet: the bursts’ reclaimed environments stand for sparse visits only',
      },
    ],
  };
}

function plan(ctx: PlanContext): StepPlan[] {
  const shape = ctx.quick ? NEWS_SHAPE.quick : NEWS_SHAPE.full;
  const durationS = ctx.durationS ?? shape.durationS;
  return [
    {
      name: STEP,
      description: `create (the stories), view (each read counts a view), then the top 10 in bursts: ${durationS} s a phase at ${shape.ratePerS}/s (open loop), the top 10's in ${shape.activeS} s bursts with ${shape.pauseS} s pauses, environments idle ${shape.reclaimIdleS} s reclaimed; ${NEWS_TOP10_FIGURES.memoryMb} MB, keep-alive on (the article's)`,
      targets: TARGETS.filter((t) => ctx.targets.includes(t)),
      variants: ['on'],
      operations: ['create', 'view', 'top10'],
      durationS,
      ratePerS: shape.ratePerS,
      bursts: { activeS: shape.activeS, pauseS: shape.pauseS, operations: ['top10'] },
      idleTimeoutS: shape.idleTimeoutS,
      reclaimIdleS: shape.reclaimIdleS,
      // The article's functions had 1,024 MB; memory is CPU, and CPU is what a fresh client spends.
      memoryMb: NEWS_TOP10_FIGURES.memoryMb,
    },
  ];
}

export const newsTop10: ExperimentDefinition = {
  name: 'news-top10',
  article: SEEDS.newsTop10,
  title: 'A news site’s top 10 by views: sparse traffic, fresh clients',
  summary:
    'create, view (counts) and the top 10 by views on Redis (sorted set), DynamoDB (GSI) and DSQL (index), open loop in sparse bursts',
  articleTargets: ['redis', 'dynamodb', 'faunadb', 'dsql'],
  plan,
  rows,
};
