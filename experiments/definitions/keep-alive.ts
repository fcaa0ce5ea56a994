/**
 * `keep-alive` (dynamodb-http-keep-alive.txt): sequential DynamoDB puts and gets, one worker
 * back to back, with keep-alive off and on, and the put10 function that writes ten Persons one
 * after the other in one invocation. The article: 33 ms -> 10 ms per put, and a function doing
 * 10 sequential operations 180 ms -> 60 ms (its execution time: REPORT Duration).
 */
import type { KeepAliveVariant } from '../../core/lab-functions';
import { KEEP_ALIVE_FIGURES, SEEDS } from '../../report/article-figures';
import { LOCAL_MODEL_NOTE, mean, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepView } from '../types';

const STEP = 'sequential';
const NO_REPORT =
  'no REPORT lines in this step (against the deployed stack, read them with npm run report -- --from-cloudwatch)';
const ARTICLE_NETWORK =
  'without keep-alive each call pays TCP + TLS set-up: TLS 1.2 (two round trips) under the article’s conditions of 2019, TLS 1.3 (one) today';

function whereNote(ctx: PlanContext): string {
  return ctx.where === 'local'
    ? LOCAL_MODEL_NOTE
    : 'deployed stack: a real region, today’s SDK v3 and TLS 1.3';
}

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  const put = (v: KeepAliveVariant) => step?.calls({ target: 'dynamodb', variant: v, phase: 'create' }) ?? [];
  const get = (v: KeepAliveVariant) => step?.calls({ target: 'dynamodb', variant: v, phase: 'get' }) ?? [];
  // Every invocation, cold ones included: the article's statistic is the average over all of them.
  const avg = (calls: readonly { dbMs: number }[]) => mean(calls.map((c) => c.dbMs));
  // The memory the functions ran at, named in each row (the article states none).
  const memory =
    step?.row('dynamodb', 'on', 'create')?.memoryMb ?? step?.row('dynamodb', 'off', 'create')?.memoryMb;
  const at = memory === undefined ? '' : `, ${memory} MB`;
  const share = (calls: readonly { newConnection: boolean }[]) =>
    calls.length === 0 ? null : calls.filter((c) => c.newConnection).length / calls.length;
  const off = avg(put('off'));
  const on = avg(put('on'));
  // The article's "function's execution time": REPORT Duration of the put10 function.
  const ten = (v: KeepAliveVariant) => step?.layer('dynamodb', v, 'put10', 'function') ?? null;
  const tenOff = ten('off')?.mean;
  const tenOn = ten('on')?.mean;
  const f = KEEP_ALIVE_FIGURES;
  const where = whereNote(ctx);
  return {
    rows: [
      row({
        metric: `put (create), keep-alive off: average database time, every invocation${at}`,
        kind: 'db',
        statistic: 'mean',
        article: f.putAvgMs.off,
        articleText: `~${f.putAvgMs.off} ms average`,
        measured: off,
        unit: 'ms',
        why: `${ARTICLE_NETWORK}; ${where}`,
      }),
      row({
        metric: `put (create), keep-alive on: average database time, every invocation${at}`,
        kind: 'db',
        statistic: 'mean',
        article: f.putAvgMs.on,
        articleText: `~${f.putAvgMs.on} ms average`,
        measured: on,
        unit: 'ms',
        why: `a kept connection pays one round trip plus the engine's own time; ${where}`,
      }),
      row({
        metric: `put: keep-alive off / on, average database time, every invocation${at}`,
        kind: 'db',
        statistic: 'mean ratio',
        article: f.putAvgMs.off / f.putAvgMs.on,
        articleText: `${f.putAvgMs.off} / ${f.putAvgMs.on} = ${(f.putAvgMs.off / f.putAvgMs.on).toFixed(1)}x`,
        measured: off !== null && on !== null && on > 0 ? off / on : null,
        unit: 'x',
        why: 'the saving is the connection set-up (TCP + TLS round trips) each call avoids',
      }),
      ...(['off', 'on'] as const).map((v) =>
        row({
          metric: `10 sequential puts in one invocation (put10), keep-alive ${v}: average function Duration${at}`,
          kind: 'duration',
          statistic: 'mean',
          article: f.tenSequentialAvgMs[v],
          articleText: `~${f.tenSequentialAvgMs[v]} ms function execution time (average)`,
          measured: ten(v)?.mean,
          unit: 'ms',
          why: [
            v === 'off'
              ? 'every one of the ten puts opens its own connection (TCP + TLS), so the set-up is paid ten times per invocation'
              : 'the ten puts ride one connection: only an environment’s first invocation pays the set-up',
            `REPORT Duration of every put10 invocation (cold ones leave their init out), as Lambda reports the function’s execution time; ${where}`,
          ].join('; '),
          noMeasure: step ? NO_REPORT : 'the step did not run',
        }),
      ),
      row({
        metric:
          '10 sequential puts in one invocation (put10): average function Duration, keep-alive off / on',
        kind: 'duration',
        statistic: 'mean ratio',
        article: f.tenSequentialAvgMs.off / f.tenSequentialAvgMs.on,
        articleText: `${f.tenSequentialAvgMs.off} / ${f.tenSequentialAvgMs.on} = ${(f.tenSequentialAvgMs.off / f.tenSequentialAvgMs.on).toFixed(1)}x`,
        measured: tenOff && tenOn && tenOn > 0 ? tenOff / tenOn : null,
        unit: 'x',
        why: 'ten connection set-ups against one: the ratio grows with the round trip a set-up costs against a put on a kept connection',
        noMeasure: step ? NO_REPORT : 'the step did not run',
      }),
      row({
        metric: `get, keep-alive off: average database time, every invocation${at}`,
        kind: 'db',
        statistic: 'mean',
        article: null,
        articleText: 'not measured (the article timed puts)',
        measured: avg(get('off')),
        unit: 'ms',
        why: 'a read pays the same connection set-up as a put',
      }),
      row({
        metric: `get, keep-alive on: average database time, every invocation${at}`,
        kind: 'db',
        statistic: 'mean',
        article: null,
        articleText: 'not measured (the article timed puts)',
        measured: avg(get('on')),
        unit: 'ms',
        why: 'reads on a kept connection',
      }),
      row({
        metric: 'share of puts that opened a connection, keep-alive off',
        kind: 'connection',
        statistic: 'share',
        article: 1,
        articleText: 'every call (Node’s default agent had no keep-alive)',
        measured: share(put('off')),
        unit: 'share',
        why: 'SDK v3 keeps connections by default: the lab builds "off" explicitly with an agent without keep-alive',
        // An agent without keep-alive opens a connection per call by definition.
        role: 'setting',
      }),
      row({
        metric: 'share of puts that opened a connection, keep-alive on',
        kind: 'connection',
        statistic: 'share',
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
  summary:
    'sequential DynamoDB puts, gets and 10-put invocations (closed loop, 1 worker), keep-alive off and on',
  articleTargets: ['dynamodb'],
  plan: (ctx) => [
    {
      name: STEP,
      description:
        'create, get and put10 (ten puts in one invocation) on DynamoDB, one worker back to back, keep-alive on and off',
      targets: ctx.targets.filter((t) => t === 'dynamodb'),
      variants: ['on', 'off'],
      operations: ['create', 'get', 'put10'],
      durationS: ctx.durationS ?? (ctx.quick ? 3 : 30),
      parallel: 1,
    },
  ],
  rows,
};
