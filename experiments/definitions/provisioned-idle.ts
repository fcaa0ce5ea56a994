/**
 * `provisioned-idle` (provisioned-concurrency-connections-ja.txt): DynamoDB functions with
 * provisioned concurrency whose environments open their connection at init
 * (prewarmConnection), keep-alive on; after a first phase, an idle gap longer than the
 * engines' idle timeout, then reads: is the first read's connection new, and what does it
 * cost against a reused one? The article: first request after provisioning 120-256 ms,
 * reused ~20 ms, new connection 70-180 ms.
 */
import { PROVISIONED_FIGURES, SEEDS } from '../article-figures';
import { LOCAL_MODEL_NOTE, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepPlan, StepView } from '../types';

const STEP = 'idle-gap';
/** --quick: engines drop a connection idle 2 s, and the gap is 3 s. */
const QUICK = { idleTimeoutS: 2, gapS: 3 } as const;

function settings(ctx: PlanContext): { idleTimeoutS: number; gapS: number } {
  return ctx.quick
    ? QUICK
    : { idleTimeoutS: PROVISIONED_FIGURES.idleTimeoutS, gapS: PROVISIONED_FIGURES.gapS };
}

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const step = steps.get(STEP);
  const { idleTimeoutS, gapS } = settings(ctx);
  const reads = step?.calls({ target: 'dynamodb', variant: 'on', phase: 'get' }) ?? [];
  const first = reads[0];
  const reused = reads.filter((c) => !c.newConnection);
  const reusedLadder = step?.ladder(reused.map((c) => c.dbMs)) ?? null;
  const fresh = reads.filter((c) => c.newConnection);
  const freshLadder = step?.ladder(fresh.map((c) => c.dbMs)) ?? null;
  const f = PROVISIONED_FIGURES;
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const timeoutNote =
    ctx.where === 'local'
      ? `the engines close connections idle ${idleTimeoutS} s${ctx.quick ? ' (--quick shortens the article’s ~60 s)' : ''}`
      : 'the service’s own idle timeout applies';
  return {
    rows: [
      row({
        metric: 'idle gap before the first read',
        article: f.gapS,
        articleText: '~90 s (provisioning done to first request, about 1.5 min)',
        measured: gapS,
        unit: 's',
        why: `a setting of this run, not a measurement${ctx.quick ? '; --quick: 3 s, longer than its 2 s idle timeout as 90 s is longer than 60 s' : ''}`,
      }),
      row({
        metric: 'idle timeout of the database’s connections',
        article: f.idleTimeoutS,
        articleText: '~60 s (a port kept within 1 min, a new one after 1 min 5 s)',
        measured: ctx.where === 'local' ? idleTimeoutS : null,
        unit: 's',
        why: 'the server, not the client, closed the idle connection in the article; locally the engines’ idle timeout plays that part',
        noMeasure: 'against the deployed stack the idle timeout is the service’s and is not a setting',
      }),
      row({
        metric: 'first read after the gap opened a new connection (1 yes, 0 no)',
        article: 1,
        articleText: 'yes: the local port changed',
        measured: first ? (first.newConnection ? 1 : 0) : null,
        unit: 'yes/no',
        why: `the environment’s kept connection (opened at init by prewarmConnection, used by the phase’s uncounted warm-up) sat idle longer than the timeout and the server closed it; keep-alive cannot keep a connection the server drops; ${timeoutNote}`,
      }),
      row({
        metric: 'first read after the gap: database time',
        article: f.firstRequestMs.on,
        articleText: '120-256 ms (256.56 ms in the keep-alive run)',
        measured: first?.dbMs,
        unit: 'ms',
        why: `a new TCP + TLS connection plus the request; ours follows a warm-up, like the article’s calls after an idle minute (70-180 ms), while its 120-256 ms first request after provisioning also paid first-use costs in a 256 MB function; ${where}`,
      }),
      row({
        metric: 'reads on a reused connection: database time p50',
        article: f.reusedMs,
        articleText: '~20 ms (port kept)',
        measured: reusedLadder?.p50,
        unit: 'ms',
        why: `one round trip plus the engine’s time; ${where}`,
      }),
      row({
        metric: 'reads on a new connection: database time p50',
        article: null,
        articleText: '70-180 ms (port changed)',
        measured: freshLadder?.p50,
        unit: 'ms',
        why: `connection set-up charged by the network model (TCP + TLS 1.3 round trips); ${fresh.length} read(s) opened one`,
      }),
      row({
        metric: 'first read after the gap / reused p50',
        article: null,
        articleText: '6-13x (120-256 ms vs ~20 ms)',
        measured: first && reusedLadder && reusedLadder.p50 > 0 ? first.dbMs / reusedLadder.p50 : null,
        unit: 'x',
        why: 'what one dropped idle connection costs the next request',
      }),
      row({
        metric: 'the first read’s environment was initialised by provisioned concurrency (1 yes, 0 no)',
        article: 1,
        articleText: 'yes (provisioned concurrency 1)',
        measured: first ? (first.initType === 'provisioned-concurrency' ? 1 : 0) : null,
        unit: 'yes/no',
        why: 'the handler reports AWS_LAMBDA_INITIALIZATION_TYPE; the connection opened during that init is the one the gap outlived',
      }),
    ],
  };
}

export const provisionedIdle: ExperimentDefinition = {
  name: 'provisioned-idle',
  article: SEEDS.provisioned,
  title: 'Provisioned concurrency, a connection opened at init, and an idle gap',
  summary:
    'DynamoDB with provisioned concurrency and prewarmConnection, keep-alive on: writes, an idle gap longer than the idle timeout, then reads (1 worker)',
  articleTargets: ['dynamodb'],
  plan: (ctx): StepPlan[] => {
    const { idleTimeoutS, gapS } = settings(ctx);
    return [
      {
        name: STEP,
        description: `create, then after a ${gapS} s idle gap get, on DynamoDB with provisioned concurrency 2 and connections opened at init; engines drop connections idle ${idleTimeoutS} s`,
        targets: ctx.targets.filter((t) => t === 'dynamodb'),
        variants: ['on'],
        operations: ['create', 'get'],
        durationS: ctx.durationS ?? (ctx.quick ? 2 : 10),
        parallel: 1,
        idleGapS: gapS,
        idleTimeoutS,
        context: { prewarmConnection: 'true', provisionedConcurrency: '2' },
      },
    ];
  },
  rows,
};
