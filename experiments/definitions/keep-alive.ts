/**
 * `keep-alive` (dynamodb-http-keep-alive.txt): sequential DynamoDB puts and gets, one worker
 * back to back, with keep-alive off and on. The article: 33 ms -> 10 ms per put, and a
 * function doing 10 sequential operations 180 ms -> 60 ms.
 */
import type { KeepAliveVariant } from '../../core/lab-functions';
import { KEEP_ALIVE_FIGURES, SEEDS } from '../article-figures';
import { LOCAL_MODEL_NOTE, mean, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepView } from '../types';

const STEP = 'sequential';
const ARTICLE_NETWORK =
  'the article (2019) paid TCP + TLS 1.2 set-up to DynamoDB per call from Lambda; the lab pays TCP + TLS 1.3 through its network model';

function whereNote(ctx: PlanContext): string {
  return ctx.where === 'local'
    ? LOCAL_MODEL_NOTE
    : 'deployed stack: a real region, today’s SDK v3 and TLS 1.3';
}

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  const put = (v: KeepAliveVariant) => step?.calls({ target: 'dynamodb', variant: v, phase: 'create' }) ?? [];
  const get = (v: KeepAliveVariant) => step?.calls({ target: 'dynamodb', variant: v, phase: 'get' }) ?? [];
  // Warm invocations: the article averaged many invocations, where a cold client's first-use costs vanish.
  const avg = (calls: readonly { dbMs: number; coldStart: boolean }[]) =>
    mean(calls.filter((c) => !c.coldStart).map((c) => c.dbMs));
  const share = (calls: readonly { newConnection: boolean }[]) =>
    calls.length === 0 ? null : calls.filter((c) => c.newConnection).length / calls.length;
  const off = avg(put('off'));
  const on = avg(put('on'));
  const f = KEEP_ALIVE_FIGURES;
  const where = whereNote(ctx);
  const derived = (v: number | null) => (v === null ? null : 10 * v);
  return {
    rows: [
      row({
        metric: 'put (create), keep-alive off: average database time, warm invocations',
        article: f.putAvgMs.off,
        articleText: '~33 ms average',
        measured: off,
        unit: 'ms',
        why: `${ARTICLE_NETWORK}; ${where}`,
      }),
      row({
        metric: 'put (create), keep-alive on: average database time, warm invocations',
        article: f.putAvgMs.on,
        articleText: '~10 ms average',
        measured: on,
        unit: 'ms',
        why: `a kept connection pays one round trip plus the engine's own time; ${where}`,
      }),
      row({
        metric: 'put: keep-alive off / on',
        article: f.putAvgMs.off / f.putAvgMs.on,
        articleText: '33 / 10 = 3.3x',
        measured: off !== null && on !== null && on > 0 ? off / on : null,
        unit: 'x',
        why: 'the saving is the connection set-up (TCP + TLS round trips) each call avoids',
      }),
      row({
        metric: '10 sequential operations, keep-alive off (derived: 10 x the measured put average)',
        article: f.tenSequentialAvgMs.off,
        articleText: '~180 ms function execution time',
        measured: derived(off),
        unit: 'ms',
        why: 'derived, not measured directly: the article timed a whole function doing 10 operations (its own overhead included), ours multiplies the per-put average',
      }),
      row({
        metric: '10 sequential operations, keep-alive on (derived: 10 x the measured put average)',
        article: f.tenSequentialAvgMs.on,
        articleText: '~60 ms function execution time',
        measured: derived(on),
        unit: 'ms',
        why: 'derived from the per-put average; the article’s 60 ms is 6 ms a call, less than its own 10 ms single-put average, as later calls of one invocation ride a warm connection',
      }),
      row({
        metric: 'get, keep-alive off: average database time, warm invocations',
        article: null,
        articleText: 'not measured (the article timed puts)',
        measured: avg(get('off')),
        unit: 'ms',
        why: 'a read pays the same connection set-up as a put',
      }),
      row({
        metric: 'get, keep-alive on: average database time, warm invocations',
        article: null,
        articleText: 'not measured (the article timed puts)',
        measured: avg(get('on')),
        unit: 'ms',
        why: 'reads on a kept connection',
      }),
      row({
        metric: 'share of puts that opened a connection, keep-alive off',
        article: 1,
        articleText: 'every call (Node’s default agent had no keep-alive)',
        measured: share(put('off')),
        unit: 'share',
        why: 'SDK v3 keeps connections by default: the lab builds "off" explicitly with an agent without keep-alive',
      }),
      row({
        metric: 'share of puts that opened a connection, keep-alive on',
        article: null,
        articleText: 'reused across invocations (no figure)',
        measured: share(put('on')),
        unit: 'share',
        why: 'only each execution environment’s first call opens one',
      }),
    ],
  };
}

export const keepAlive: ExperimentDefinition = {
  name: 'keep-alive',
  article: SEEDS.keepAlive,
  title: 'DynamoDB with and without HTTP keep-alive',
  summary: 'sequential DynamoDB puts and gets (closed loop, 1 worker), keep-alive off and on',
  articleTargets: ['dynamodb'],
  plan: (ctx) => [
    {
      name: STEP,
      description: 'create then get on DynamoDB, one worker back to back, keep-alive on and off',
      targets: ctx.targets.filter((t) => t === 'dynamodb'),
      variants: ['on', 'off'],
      operations: ['create', 'get'],
      durationS: ctx.durationS ?? (ctx.quick ? 3 : 30),
      parallel: 1,
    },
  ],
  rows,
};
