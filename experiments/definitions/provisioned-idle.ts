/**
 * `provisioned-idle` (provisioned-concurrency-connections-ja.txt), run as the article ran it:
 * DynamoDB functions at 256 MB with provisioned concurrency 1 whose environments open their
 * connection at init (prewarmConnection), keep-alive on, and no request before the gap: the
 * get function's provisioned environment idles from its init until the first read. One step
 * per gap (30, 60, 65 and 90 s: within the ~60 s idle timeout, at it, just past it, and the
 * article's ~1.5 min from provisioning to its first request), and the 90 s gap again with
 * prewarming off. The article: the first request after provisioning paid a new connection
 * (256.56 ms DynamoDB, REPORT Duration 1281.08 ms); within a minute the port was kept (~20 ms),
 * after 1 min 5 s a new one (70-180 ms).
 */
import { PROVISIONED_FIGURES, SEEDS } from '../../report/article-figures';
import type { ExperimentRow } from '../../report/report-model';
import { coldStartModelNote, LOCAL_MODEL_NOTE, mean, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepPlan, StepView } from '../types';

interface Gap {
  /** the step's idle gap setting, s */
  readonly gapS: number;
  /** the article's gap it stands for (PROVISIONED_FIGURES.afterGap), if any */
  readonly articleGapS: number | null;
  readonly prewarm: boolean;
}

const FULL: readonly Gap[] = [
  // The harness's own ~10 s between phases makes the 30 s setting the article's ~40 s idle.
  { gapS: 30, articleGapS: 40, prewarm: true },
  { gapS: 60, articleGapS: 60, prewarm: true },
  { gapS: 65, articleGapS: 65, prewarm: true },
  { gapS: 90, articleGapS: 90, prewarm: true },
  { gapS: 90, articleGapS: null, prewarm: false },
];
/**
 * --quick: engines drop a connection idle 20 s. Between the create phase and the reads the
 * harness itself takes ~10 s on a busy machine (Artillery's start and stop), so a 1 s gap keeps
 * the connection and a 25 s gap outlives the timeout.
 */
const QUICK_IDLE_TIMEOUT_S = 20;
const QUICK: readonly Gap[] = [
  { gapS: 1, articleGapS: null, prewarm: true },
  { gapS: 25, articleGapS: null, prewarm: true },
  { gapS: 1, articleGapS: null, prewarm: false },
];

const gapsOf = (ctx: PlanContext) => (ctx.quick ? QUICK : FULL);
const idleTimeoutOf = (ctx: PlanContext) =>
  ctx.quick ? QUICK_IDLE_TIMEOUT_S : PROVISIONED_FIGURES.idleTimeoutS;
const stepName = (g: Gap) => `gap-${g.gapS}s${g.prewarm ? '' : '-no-prewarm'}`;

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const f = PROVISIONED_FIGURES;
  const idleTimeoutS = idleTimeoutOf(ctx);
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const out: ExperimentRow[] = [];
  const reusedDb: number[] = [];
  const newConnectionDb: number[] = [];
  for (const g of gapsOf(ctx)) {
    const step = steps.get(stepName(g));
    const creates = step?.calls({ target: 'dynamodb', variant: 'on', phase: 'create' }) ?? [];
    const reads = step?.calls({ target: 'dynamodb', variant: 'on', phase: 'get' }) ?? [];
    const first = reads[0];
    const lastCreate = creates.at(-1);
    // First read's start (its response time less its time to first byte) minus the last create's response.
    const measuredGapS =
      first && lastCreate && first.clientMs !== null
        ? (first.at - first.clientMs - lastCreate.at) / 1000
        : null;
    const firstDuration = step?.reportDurations('dynamodb', 'on', 'get')[0];
    const a = g.articleGapS === null ? undefined : f.afterGap[g.articleGapS];
    // What ran: the step's own context and the memory its phases reported, the plan's when it did not run.
    const pc = step?.plan.context?.provisionedConcurrency ?? String(f.provisionedConcurrency);
    const memoryMb = step?.row('dynamodb', 'on', 'get')?.memoryMb ?? f.memoryMb;
    const settings = `setting: gap ${g.gapS} s, idle timeout ${ctx.where === 'local' ? `${idleTimeoutS} s` : 'the service’s'}, prewarm ${g.prewarm ? 'on' : 'off'}, PC ${pc}, ${memoryMb} MB`;
    const label = `${stepName(g)} (${settings})`;
    const articleText = (v: number | boolean | undefined, what: string) =>
      a === undefined
        ? g.prewarm
          ? 'no call after this gap in the article'
          : 'no such run in the article (it always created its client at init)'
        : `${typeof v === 'boolean' ? (v ? 'yes: the port changed' : 'no: the port was kept') : v} (${what})`;
    if (g.articleGapS === 90)
      out.push(
        row({
          metric: `${label}: the provisioned environment’s Init Duration (at provisioning)`,
          kind: 'init',
          statistic: 'single',
          article: f.initDurationMs,
          articleText: `${f.initDurationMs} ms (the first request’s REPORT; the keep-alive-off run’s 2395.82 ms)`,
          measured: step?.group('dynamodb', 'on', 'get')?.coldStarts.init.p50,
          unit: 'ms',
          why: `the get function’s INIT_REPORT, written at provisioning before any request (the first request waits none of it, as the article’s came ~1.5 min after): Lambda’s sandbox and runtime start, modeled (${coldStartModelNote(step?.lab)}), the bundle’s module load and the connection opened at init`,
          noMeasure:
            'no INIT_REPORT for the get function in the step (against the deployed stack: npm run report -- --from-cloudwatch)',
          cause:
            'the model’s figure is an on-demand hello-world’s init; the article’s provisioned init took 1.7 s from INIT_START to its module’s first line (its imports, whose build it does not give, and the runtime’s start, which no published benchmark measures for provisioned environments) and a DynamoDB call at init (462.607 ms in its other run)',
        }),
      );
    for (const r of reads.slice(1)) if (!r.newConnection) reusedDb.push(r.dbMs);
    if (first?.newConnection && g.prewarm) newConnectionDb.push(first.dbMs);
    out.push(
      row({
        metric: `${label}: time from the last create to the first read`,
        kind: 'duration',
        statistic: 'single',
        article: g.articleGapS,
        articleText:
          g.articleGapS === 90
            ? '~90 s (provisioning done to the first request, about 1.5 min)'
            : g.articleGapS === null
              ? 'no such gap in the article'
              : `~${g.articleGapS} s since the previous call`,
        measured: measuredGapS,
        unit: 's',
        why: `measured, not the setting: the gap plus the harness’s own time between phases (Artillery’s stop and start, ~10 s on a busy machine); the get function’s provisioned environment idled longer still, from its init (before the create phase) to this read`,
        noMeasure: 'no create or no read with a client time',
        // The gap is the step's own setting: the row shows the harness kept it, it predicts nothing.
        role: 'setting',
      }),
      row({
        metric: `${label}: the first read opened a new connection (1 yes, 0 no)`,
        kind: 'connection',
        statistic: 'single',
        article: a === undefined ? null : a.newConnection ? 1 : 0,
        articleText: articleText(a?.newConnection, 'the logged local port'),
        measured: first ? (first.newConnection ? 1 : 0) : null,
        unit: 'yes/no',
        why: `${g.prewarm ? 'the connection opened at init survives only if the environment’s idle time stays under the idle timeout' : 'without prewarming the first call opens the connection whatever the gap'}; keep-alive cannot keep a connection the server drops`,
        role: 'calibration',
        cause: `the engines’ ${PROVISIONED_FIGURES.idleTimeoutS} s idle timeout was taken from this article’s kept and changed ports (kept at 60 s, changed at 65 s); no AWS page gives DynamoDB’s`,
      }),
      row({
        metric: `${label}: the first read’s database time`,
        kind: 'db',
        statistic: 'single',
        article: a?.dbMs ?? null,
        articleText: articleText(a?.dbMs, 'DynamoDB latency, ms'),
        measured: first?.dbMs,
        unit: 'ms',
        why: `a new TCP + TLS connection plus the request, or the request alone on a kept one; the article’s 256.56 ms after provisioning also paid the client’s first use in a 256 MB function; ${where}`,
      }),
      row({
        metric: `${label}: the first read’s function Duration (REPORT)`,
        kind: 'duration',
        statistic: 'single',
        article: a?.durationMs ?? null,
        articleText: articleText(a?.durationMs, 'REPORT Duration, ms'),
        measured: firstDuration,
        unit: 'ms',
        why: 'the article’s handler logged sockets and more around its call (its Durations of ~400 ms at 256 MB held far more than the DynamoDB call); ours only makes the call',
        noMeasure:
          'no REPORT line for the read (against the deployed stack: npm run report -- --from-cloudwatch)',
      }),
    );
  }
  out.push(
    row({
      metric: 'reads on a kept connection: database time',
      kind: 'db',
      statistic: 'mean',
      article: mean(f.keptPortMs),
      articleText: `${(mean(f.keptPortMs) ?? 0).toFixed(1)} ms (${f.keptPortMs.join(', ')} ms: every call on a kept port, keep-alive on)`,
      measured: mean(reusedDb),
      unit: 'ms',
      why: `one round trip plus the engine’s time; ${where}`,
    }),
    row({
      metric: 'first reads after a gap that opened a new connection: database time',
      kind: 'db',
      statistic: 'mean',
      article: null,
      articleText: `${f.newConnectionMs.low}-${f.newConnectionMs.high} ms (a range, "when the port changed")`,
      measured: mean(newConnectionDb),
      unit: 'ms',
      why: `a new TCP + TLS connection and the request, after the engine dropped the idle one; ${where}`,
      noMeasure: 'no first read opened a new connection',
    }),
  );
  return {
    rows: out,
    notReproduced: [
      {
        figure:
          'the keep-alive-off table (first call after provisioning 120.346 ms, then 66.93 ms and 65.295 ms on new ports)',
        reason: 'the steps run keep-alive on only, as the lab’s prewarmed connection needs a kept one',
      },
      {
        figure:
          'the call made while provisioned concurrency was being prepared (~460 ms: 462.607 and 461.182 ms)',
        reason: 'the local host runs no request during a provisioned environment’s init',
      },
    ],
  };
}

export const provisionedIdle: ExperimentDefinition = {
  name: 'provisioned-idle',
  article: SEEDS.provisioned,
  title: 'Provisioned concurrency, a connection opened at init, and an idle gap',
  summary:
    'DynamoDB at 256 MB, provisioned concurrency 1, connection opened at init, keep-alive on, no warm-up: create, an idle gap (30, 60, 65, 90 s; 90 s again without prewarming), then reads (1 worker)',
  articleTargets: ['dynamodb'],
  plan: (ctx): StepPlan[] => {
    const idleTimeoutS = idleTimeoutOf(ctx);
    return gapsOf(ctx).map((g) => ({
      name: stepName(g),
      description: `create, then a ${g.gapS} s idle gap with no warm-up, then get, on DynamoDB at ${PROVISIONED_FIGURES.memoryMb} MB with provisioned concurrency ${PROVISIONED_FIGURES.provisionedConcurrency}${g.prewarm ? ' and the connection opened at init' : ', no prewarming'}; engines drop connections idle ${idleTimeoutS} s`,
      targets: ctx.targets.filter((t) => t === 'dynamodb'),
      variants: ['on'],
      operations: ['create', 'get'],
      // The create phase only writes the Persons the reads need; the get environment idles through it too.
      durationS: ctx.durationS ?? 2,
      parallel: 1,
      idleGapS: g.gapS,
      warmupS: 0,
      idleTimeoutS,
      memoryMb: PROVISIONED_FIGURES.memoryMb,
      context: {
        prewarmConnection: g.prewarm ? 'true' : 'false',
        provisionedConcurrency: String(PROVISIONED_FIGURES.provisionedConcurrency),
      },
    }));
  },
  rows,
};
