/**
 * `qldb-vs-dynamodb` (qldb-vs-dynamodb-optimising.txt): create and get on QLDB (emulated
 * locally) and DynamoDB, with Aurora DSQL beside them, keep-alive on and off. The article:
 * QLDB ~40 ms against single-digit ms for DynamoDB, 4 SendCommand calls per QLDB request,
 * and keep-alive roughly halving the average and p95 Duration.
 */
import type { KeepAliveVariant, Operation, Target } from '../../core/lab-functions';
import { QLDB_FIGURES, SEEDS } from '../article-figures';
import { LOCAL_MODEL_NOTE, mean, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepView } from '../types';

const STEP = 'create-get';
const TARGETS: readonly Target[] = ['dynamodb', 'qldb', 'dsql'];
const OPS: readonly Operation[] = ['create', 'get'];

const QLDB_LOCAL =
  'QLDB is emulated locally (service shut down 2025-07-31): the lab reproduces its protocol’s round trips, not its journal’s storage time';

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  // Warm invocations: the article's averages ran over thousands of requests, where cold ones vanish.
  const avgDb = (t: Target, op: Operation, v: KeepAliveVariant) =>
    mean((step?.calls({ target: t, variant: v, phase: op, coldStart: false }) ?? []).map((c) => c.dbMs));
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const f = QLDB_FIGURES;
  const out = [];
  for (const op of OPS) {
    out.push(
      row({
        metric: `QLDB ${op}, keep-alive on: average database time, warm invocations`,
        article: f.qldbMs,
        articleText: '~40 ms (creates and gets after tuning)',
        measured: avgDb('qldb', op, 'on'),
        unit: 'ms',
        why: `${ctx.where === 'local' ? QLDB_LOCAL : 'QLDB ledgers can no longer be created'}; ${where}`,
        noMeasure: ctx.targets.includes('qldb') ? undefined : 'qldb is not among the targets run',
      }),
      row({
        metric: `DynamoDB ${op}, keep-alive on: average database time, warm invocations`,
        article: null,
        articleText: 'single-digit ms (< 10)',
        measured: avgDb('dynamodb', op, 'on'),
        unit: 'ms',
        why: `one HTTPS request on a kept connection; ${where}`,
      }),
      row({
        metric: `Aurora DSQL ${op}, keep-alive on: average database time, warm invocations`,
        article: null,
        articleText: 'not in the article (DSQL came out in 2024)',
        measured: avgDb('dsql', op, 'on'),
        unit: 'ms',
        why: `PostgreSQL protocol on one connection per environment; ${ctx.where === 'local' ? 'locally a real PostgreSQL, not DSQL’s distributed commit' : 'deployed cluster'}`,
        noMeasure: ctx.targets.includes('dsql') ? undefined : 'dsql is not among the targets run',
      }),
    );
  }
  const qldbOverDdb = (op: Operation) => {
    const q = avgDb('qldb', op, 'on');
    const d = avgDb('dynamodb', op, 'on');
    return q !== null && d !== null && d > 0 ? q / d : null;
  };
  out.push(
    row({
      metric: 'QLDB / DynamoDB average database time, get, keep-alive on',
      article: null,
      articleText: '> 4x (~40 ms vs single-digit ms)',
      measured: qldbOverDdb('get'),
      unit: 'x',
      why: 'QLDB pays several round trips per request (start, execute, commit), DynamoDB one; locally both engines are fast, so the ratio is mostly round trips',
    }),
  );
  for (const op of OPS) {
    const reqs = step?.row('qldb', 'on', op)?.dbRequests?.p50;
    out.push(
      row({
        metric: `QLDB ${op}: round trips (SendCommand calls) per request, p50`,
        article: f.qldbCommandsPerRequest,
        articleText: '4 in X-Ray (session, start, execute, commit)',
        measured: reqs,
        unit: 'calls',
        why:
          op === 'get'
            ? 'the driver reuses its pooled session, so a read is start, execute, commit; the article’s 4 counted a session per request'
            : 'the create checks for the GovId then inserts in one transaction: start, two executes, commit on a pooled session',
      }),
    );
  }
  out.push(
    row({
      metric: 'DynamoDB get: requests per call, p50',
      article: null,
      articleText: 'one GetItem (no figure)',
      measured: step?.row('dynamodb', 'on', 'get')?.dbRequests?.p50,
      unit: 'calls',
      why: 'one HTTP request per call, counted by the client',
    }),
  );
  // The article read Logs Insights: avg(@duration) and pct(@duration, 95), i.e. the function
  // layer; ours from the warm invocations' REPORT Duration, or the handler's database time
  // where there are no REPORT lines (the deployed stack's logs are not fetched here).
  for (const t of ['qldb', 'dynamodb'] as const) {
    for (const op of OPS) {
      const warm = (v: KeepAliveVariant) => step?.group(t, v, op)?.coldStarts.warm ?? null;
      const db = (v: KeepAliveVariant) =>
        step?.ladder(
          (step?.calls({ target: t, variant: v, phase: op, coldStart: false }) ?? []).map((c) => c.dbMs),
        ) ?? null;
      const fromReport = warm('off') !== null && warm('on') !== null;
      const avg = (v: KeepAliveVariant) => (fromReport ? warm(v)?.avg : db(v)?.mean) ?? null;
      const p95 = (v: KeepAliveVariant) => (fromReport ? warm(v)?.p95 : db(v)?.p95) ?? null;
      const ratio = (f: (v: KeepAliveVariant) => number | null) => {
        const off = f('off');
        const on = f('on');
        return off !== null && on !== null && on > 0 ? off / on : null;
      };
      const label = t === 'qldb' ? 'QLDB' : 'DynamoDB';
      const why = `ours from ${fromReport ? 'warm invocations’ REPORT Duration' : 'warm calls’ database time'}, as the article read Logs Insights avg(@duration) and pct(@duration, 95); ${t === 'qldb' ? 'every QLDB command pays the set-up without keep-alive, so the saving grows with the round trips per request' : 'one request per call: the saving is one connection set-up'}`;
      const noMeasure =
        t === 'qldb' && !ctx.targets.includes('qldb') ? 'qldb is not among the targets run' : undefined;
      out.push(
        row({
          metric: `${label} ${op}: average Duration, keep-alive off / on`,
          article: f.keepAliveOffOverOn,
          articleText: '~2x ("roughly halved")',
          measured: ratio(avg),
          unit: 'x',
          why,
          noMeasure,
        }),
        row({
          metric: `${label} ${op}: p95 Duration, keep-alive off / on`,
          article: f.keepAliveOffOverOn,
          articleText: '~2x ("also true for the P95")',
          measured: ratio(p95),
          unit: 'x',
          why,
          noMeasure,
        }),
      );
    }
  }
  return { rows: out };
}

export const qldbVsDynamodb: ExperimentDefinition = {
  name: 'qldb-vs-dynamodb',
  article: SEEDS.qldb,
  title: 'QLDB against DynamoDB, and what keep-alive does to each',
  summary:
    'create and get on QLDB (emulated), DynamoDB and DSQL, keep-alive on and off (closed loop, 1 worker)',
  articleTargets: ['qldb', 'dynamodb', 'dsql'],
  plan: (ctx) => [
    {
      name: STEP,
      description: 'create then get on each target, keep-alive on and off, one worker back to back',
      targets: TARGETS.filter((t) => ctx.targets.includes(t)),
      variants: ['on', 'off'],
      operations: [...OPS],
      durationS: ctx.durationS ?? (ctx.quick ? 2 : 20),
      // One worker back to back: an open loop faster than QLDB without keep-alive queues up.
      parallel: 1,
    },
  ],
  rows,
};
