/**
 * `news-top10` (dynamodb-faunadb-upstash-latency-hi.txt): the article's news site. It loaded
 * 7,001 stories into each database, each scored at random, and every page request queried its
 * section's ten most viewed (one ZREVRANGE on Upstash, a GSI sorted by view count on DynamoDB,
 * an index on FaunaDB), timing the query alone inside the function, at 1,024 MB. Its traffic was
 * sparse: most page requests met a function that had to build its client again, which made the
 * tail (p99: Upstash ~50 ms, DynamoDB ~200 ms, FaunaDB ~900 ms); a job fetching the site every
 * 15 s, or a page refreshed at once, showed the warm figures (~1 ms Redis, ~7 ms DynamoDB).
 *
 * Here: the stories seeded straight into each engine (uncounted, loadtest/seed-stories.ts),
 * then two steps on Redis, DynamoDB and DSQL. `news-site`: the top 10 in sparse bursts (an open
 * loop at a low rate, with pauses longer than the engines' idle timeout and the host's reclaim
 * window, so the first request of each burst meets a cold environment and builds its client
 * again), 1,000 requests a target so that a p99 is a p99. `keep-warm`: the article's job, one
 * request every 15 s, environments kept as Lambda keeps them. The rows compare the top-10
 * query's database time (the timing block's dbMs, the article's perf_hooks span) at the
 * article's statistics, with the share of requests that met a cold start or a new connection.
 */
import { type Operation, type Target, targetLabel } from '../../core/lab-functions';
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
const KEEP_WARM_STEP = 'keep-warm';
const TARGETS: readonly Target[] = ['redis', 'dynamodb', 'dsql'];

/**
 * The site's sparse traffic. Page requests (top10) come at `ratePerS` (open loop) in bursts of
 * `activeS` with `pauseS` of no traffic between, longer than `idleTimeoutS`, after which the
 * local engines have closed the functions' idle connections, and longer than `reclaimIdleS`,
 * after which the host has ended the idle execution environment: each burst's first request is
 * a cold start that builds its client again. `samples` requests a target: a p99 over 1,000
 * has ten values above it. `stories`: seeded before the step.
 */
export const NEWS_SHAPE = {
  full: {
    samples: 1000,
    ratePerS: 1,
    activeS: 3,
    pauseS: 12,
    idleTimeoutS: 10,
    reclaimIdleS: 10,
    stories: NEWS_TOP10_FIGURES.stories,
  },
  quick: { samples: 4, ratePerS: 2, activeS: 1, pauseS: 3, idleTimeoutS: 2, reclaimIdleS: 2, stories: 200 },
} as const;

/**
 * The article's keep-warm job: one request every `everyS` (its 15 s), `visits` of them a
 * target. Environments are not reclaimed within the step and the engines keep the lab's idle
 * timeout (60 s): both outlast the interval, as Lambda's and the services' did for the job.
 */
export const KEEP_WARM = {
  full: { everyS: NEWS_TOP10_FIGURES.keepWarmEveryS, visits: 40 },
  quick: { everyS: 3, visits: 2 },
} as const;

/** Lambda's execution environment lifecycle: the shutdown phase ends environments it no longer needs. */
const LIFECYCLE_DOC = 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html';
/** "the Lambda service retains the execution environment for a non-deterministic period of time" */
const RETAIN_DOC = 'https://docs.aws.amazon.com/lambda/latest/operatorguide/execution-environments.html';

/** A call that paid for a fresh client: the environment's first (cold start) or a new connection. */
const fresh = (c: Call) => c.coldStart || c.newConnection;

function percent(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${((part / whole) * 100).toFixed(0)} %`;
}

const shapeOf = (ctx: PlanContext) => (ctx.quick ? NEWS_SHAPE.quick : NEWS_SHAPE.full);
const keepWarmOf = (ctx: PlanContext) => (ctx.quick ? KEEP_WARM.quick : KEEP_WARM.full);
/** Active seconds of the sparse step: its samples at its rate, or --duration. */
const sparseDurationS = (ctx: PlanContext) =>
  ctx.durationS ?? Math.ceil(shapeOf(ctx).samples / shapeOf(ctx).ratePerS);

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  const warmStep = steps.get(KEEP_WARM_STEP);
  const out: ExperimentRow[] = [];
  const f = NEWS_TOP10_FIGURES;
  const shape = shapeOf(ctx);
  const kw = keepWarmOf(ctx);
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const seeded = step?.plan.seedStories ?? shape.stories;
  const data =
    ctx.where === 'local'
      ? `over ${seeded.toLocaleString('en-US')} stories seeded with random view counts (the article's section was part of its ${f.stories.toLocaleString('en-US')}; the lab's index holds them all, and a top 10 reads 10 entries of it whatever its size)`
      : 'over what the deployed tables hold (seeding is local only)';
  const traffic = `${sparseDurationS(ctx)} s of top-10 requests at ${shape.ratePerS}/s in ${shape.activeS} s bursts with ${shape.pauseS} s pauses${ctx.where === 'local' ? ` (condition: engines drop connections idle ${shape.idleTimeoutS} s and the host ends environments idle ${shape.reclaimIdleS} s, compressed stand-ins for the services' idle limits and Lambda's reclaim, which takes minutes: ${RETAIN_DOC})` : ''}`;
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
        ? 'one EVAL: ZREVRANGE ... WITHSCORES and the ten records’ GETs on the server'
        : t === 'dynamodb'
          ? 'one Query of the sparse TopStories GSI (partition Section, sort Views), ScanIndexForward false, Limit 10'
          : 'SELECT ... ORDER BY views DESC LIMIT 10 on the person_by_views index';
    // The keep-warm job: its first request builds the client; the others are what the article's job saw.
    const warmCalls = warmStep?.calls({ target: t, variant: 'on', phase: 'top10' }) ?? [];
    const kept = warmCalls.slice(1);
    const keptFresh = kept.filter(fresh);
    out.push(
      row({
        metric: `${label} top 10: query time p99, every request`,
        kind: 'db',
        statistic: 'p99',
        article: articleP99,
        articleText: articleP99 === null ? 'not in the article' : `~${articleP99} ms (${who})`,
        measured: ladder(calls)?.p99,
        unit: 'ms',
        why: `a p99 is set by the requests that built a client: ${shareText}. The article’s site was sparser still: its visits were further apart than its bursts, so most requests met a reclaimed environment; here ${reclaim}; ${traffic}; ${data}; ${where}`,
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
        why: `a warm query pays its one round trip at ${ctx.where === 'local' ? 'the network model’s' : 'the region’s'} round-trip time plus the engine’s work${articleWarm === null ? '' : '; the article’s figure is one observed refresh in the same region'}; ${where}`,
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
        why: `warm requests; the lab’s query: ${query}`,
      }),
      row({
        metric: `${label} top 10: query time p50, a request every ${kw.everyS} s (the keep-warm job)`,
        kind: 'db',
        statistic: 'p50',
        article: articleWarm,
        articleText:
          articleWarm === null
            ? 'not in the article'
            : `~${articleWarm} ms (${who}, “a job that fetches the website every ${f.keepWarmEveryS} seconds”)`,
        measured: warmStep?.ladder(kept.map((c) => c.dbMs))?.p50,
        unit: 'ms',
        why: `the job’s requests after its first (which built the client), ${kept.length} of them: ${keptFresh.length} met a cold start or a new connection${ctx.where === 'local' ? `; condition: no environment reclaimed within the step (Lambda retains an idle environment for a non-deterministic time, minutes: ${RETAIN_DOC}) and the engines’ idle timeout the lab’s 60 s (fitted to the provisioned-concurrency article: calibration), both longer than the ${kw.everyS} s interval` : ''}; ${data}; ${where}`,
        noMeasure: 'the keep-warm step did not run or answered no request after its first',
      }),
      row({
        metric: `${label} top 10: keep-warm requests that met a cold start or a new connection`,
        kind: 'count',
        statistic: 'share',
        article: null,
        articleText: 'no number: the job’s requests saw the warm figures',
        measured: kept.length === 0 ? null : (keptFresh.length / kept.length) * 100,
        unit: '%',
        why: `${keptFresh.length} of ${kept.length} requests after the job’s first; a request every ${kw.everyS} s keeps the environment and its connection`,
        noMeasure: 'the keep-warm step did not run or answered no request after its first',
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
  return { rows: out };
}

function plan(ctx: PlanContext): StepPlan[] {
  const shape = shapeOf(ctx);
  const kw = keepWarmOf(ctx);
  const durationS = sparseDurationS(ctx);
  const targets = TARGETS.filter((t) => ctx.targets.includes(t));
  const local = ctx.where === 'local';
  const seed = local
    ? `${shape.stories.toLocaleString('en-US')} stories seeded straight into each engine (uncounted)`
    : 'create (the stories) and view (each read counts a view), as seeding reaches local engines only';
  // Against a deployed stack the phases write and count the stories the top 10 reads.
  const operations: Operation[] = local ? ['top10'] : ['create', 'view', 'top10'];
  return [
    {
      name: STEP,
      description: `${seed}, then the top 10 in bursts: ${durationS} s at ${shape.ratePerS}/s (open loop, ${durationS * shape.ratePerS} requests a target) in ${shape.activeS} s bursts with ${shape.pauseS} s pauses, engines drop connections idle ${shape.idleTimeoutS} s, environments idle ${shape.reclaimIdleS} s reclaimed; ${NEWS_TOP10_FIGURES.memoryMb} MB, keep-alive on (the article's); the targets side by side`,
      targets,
      // Sparse visits to separate functions and engines: side by side, the step takes one
      // target's time, and the host's load through it is on the scorecard.
      targetsAtOnce: true,
      variants: ['on'],
      operations,
      durationS,
      ratePerS: shape.ratePerS,
      bursts: { activeS: shape.activeS, pauseS: shape.pauseS, operations: ['top10'] },
      idleTimeoutS: shape.idleTimeoutS,
      reclaimIdleS: shape.reclaimIdleS,
      ...(local ? { seedStories: shape.stories } : {}),
      // The article's functions had 1,024 MB; memory is CPU, and CPU is what a fresh client spends.
      memoryMb: NEWS_TOP10_FIGURES.memoryMb,
    },
    {
      name: KEEP_WARM_STEP,
      description: `${seed}, then the keep-warm job: one top 10 every ${kw.everyS} s, ${kw.visits} a target; environments kept, engines' idle timeout the lab's; ${NEWS_TOP10_FIGURES.memoryMb} MB, keep-alive on; the targets side by side`,
      targets,
      targetsAtOnce: true,
      variants: ['on'],
      operations,
      // One arrival a burst (1 s at 1/s), then a pause: one request every everyS.
      durationS: ctx.durationS ?? kw.visits,
      ratePerS: 1,
      bursts: { activeS: 1, pauseS: kw.everyS - 1, operations: ['top10'] },
      ...(local ? { seedStories: shape.stories } : {}),
      memoryMb: NEWS_TOP10_FIGURES.memoryMb,
    },
  ];
}

export const newsTop10: ExperimentDefinition = {
  name: 'news-top10',
  article: SEEDS.newsTop10,
  title: 'A news site’s top 10 by views: sparse traffic, fresh clients, a keep-warm job',
  summary:
    'the article’s 7,001 stories seeded in each engine, then the top 10 by views on Redis (sorted set), DynamoDB (GSI) and DSQL (index): 1,000 requests a target in sparse bursts, and a request every 15 s (keep-warm)',
  articleTargets: ['redis', 'dynamodb', 'faunadb', 'dsql'],
  plan,
  rows,
};
