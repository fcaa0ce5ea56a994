/**
 * `provisioned-idle` (provisioned-concurrency-connections-ja.txt), run as the article ran it:
 * DynamoDB functions at 256 MB with provisioned concurrency 1 whose environments open their
 * connection at init (prewarmConnection), keep-alive off and on (the article's two tables).
 * Each gap is one environment: a request, the gap, a request, as the article logged them (the
 * step's get phase after an uncounted warm-up of one request, both answered by the one
 * provisioned environment); the first request after provisioning has no request before it (the
 * environment idles from its init). The article's cases: ~90 s from provisioning, ~20 s (off),
 * ~40 s (on), ~60 s and ~65 s (both); the 90 s case again with prewarming off, a lab addition.
 */
import type { KeepAliveVariant } from '../../core/lab-functions';
import { PROVISIONED_FIGURES, type ProvisionedCall, SEEDS } from '../../report/article-figures';
import type { ExperimentRow } from '../../report/report-model';
import { coldStartModelNote, LOCAL_MODEL_NOTE, mean, row } from '../rows';
import type { ExperimentDefinition, ExperimentOutcome, PlanContext, StepPlan, StepView } from '../types';

interface Gap {
  /** the article's case it stands for (90: provisioning done to the first request); null: none */
  readonly articleGapS: number | null;
  /** the step's idle gap setting, s */
  readonly gapS: number;
  readonly variants: readonly KeepAliveVariant[];
  readonly prewarm: boolean;
  /** one request before the gap (the warm-up); false: the environment idles from its init */
  readonly requestBefore: boolean;
}

/**
 * The harness's own time between a request and the next phase's first (Artillery's stop and
 * start on a busy machine), which the gap setting leaves room for: the report's measured gaps
 * ran 10 to 16 s over their settings.
 */
export const HARNESS_S = 13;

/**
 * The idle timeout the engines apply in the full run: between the longest idle time the
 * article's kept port survived and the shortest that lost it (its table's start times). It is
 * fitted to these rows: calibration, no AWS page gives DynamoDB's.
 */
export const FITTED_IDLE_TIMEOUT_S = Math.round(
  (PROVISIONED_FIGURES.keptAfterS + PROVISIONED_FIGURES.droppedAfterS) / 2,
);

const between = (articleGapS: number, variants: readonly KeepAliveVariant[]): Gap => ({
  articleGapS,
  gapS: articleGapS - HARNESS_S,
  variants,
  prewarm: true,
  requestBefore: true,
});

const FULL: readonly Gap[] = [
  { articleGapS: 90, gapS: 90, variants: ['on', 'off'], prewarm: true, requestBefore: false },
  between(20, ['off']),
  between(40, ['on']),
  between(60, ['on', 'off']),
  between(65, ['on', 'off']),
  { articleGapS: null, gapS: 90, variants: ['on'], prewarm: false, requestBefore: false },
];
/**
 * --quick: engines drop a connection idle 20 s. With the harness's own ~10 s, a 1 s gap keeps
 * the connection and a 25 s gap outlives the timeout.
 */
const QUICK_IDLE_TIMEOUT_S = 20;
const QUICK: readonly Gap[] = [
  { articleGapS: null, gapS: 1, variants: ['on', 'off'], prewarm: true, requestBefore: true },
  { articleGapS: null, gapS: 25, variants: ['on'], prewarm: true, requestBefore: true },
];

export const gapsOf = (ctx: PlanContext): readonly Gap[] => (ctx.quick ? QUICK : FULL);
const idleTimeoutOf = (ctx: PlanContext) => (ctx.quick ? QUICK_IDLE_TIMEOUT_S : FITTED_IDLE_TIMEOUT_S);
export const stepName = (g: Gap): string =>
  `gap-${g.articleGapS ?? g.gapS}s${g.prewarm ? '' : '-no-prewarm'}`;

const tableOf = (v: KeepAliveVariant): readonly ProvisionedCall[] =>
  v === 'on' ? PROVISIONED_FIGURES.tableOn : PROVISIONED_FIGURES.tableOff;
/** The article's calls after this gap, in its table of this keep-alive. */
const articleCalls = (g: Gap, v: KeepAliveVariant): readonly ProvisionedCall[] =>
  g.articleGapS === null || !g.prewarm ? [] : tableOf(v).filter((c) => c.gapS === g.articleGapS);
const tableName = (v: KeepAliveVariant) => `keep-alive-${v} table`;

function rows(steps: ReadonlyMap<string, StepView>, ctx: PlanContext): ExperimentOutcome {
  const f = PROVISIONED_FIGURES;
  const idleTimeoutS = idleTimeoutOf(ctx);
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const out: ExperimentRow[] = [];
  /** The first reads after a gap (not the first after provisioning), by keep-alive. */
  const kept: number[] = [];
  const renewedOn: number[] = [];
  const offAfterGap: number[] = [];
  for (const g of gapsOf(ctx)) {
    const step = steps.get(stepName(g));
    for (const v of g.variants.filter((x) => step === undefined || step.plan.variants.includes(x))) {
      const before = g.requestBefore
        ? (step?.calls({ target: 'dynamodb', variant: v, phase: 'get', warmUp: true }) ?? [])
        : (step?.calls({ target: 'dynamodb', variant: v, phase: 'create' }) ?? []);
      const reads = step?.calls({ target: 'dynamodb', variant: v, phase: 'get' }) ?? [];
      const first = reads[0];
      const last = before.at(-1);
      // The first read's start (its response time less its time to first byte) minus the last request's response.
      const measuredGapS =
        first && last && first.clientMs !== null ? (first.at - first.clientMs - last.at) / 1000 : null;
      // The log holds the warm-up's REPORT lines before the phase's.
      const firstDuration = step?.reportDurations('dynamodb', v, 'get')[g.requestBefore ? before.length : 0];
      const calls = articleCalls(g, v);
      const a = calls[0];
      const others = calls.slice(1);
      const pc = step?.plan.context?.provisionedConcurrency ?? String(f.provisionedConcurrency);
      const memoryMb = step?.row('dynamodb', v, 'get')?.memoryMb ?? f.memoryMb;
      const settings = `setting: gap ${g.gapS} s${g.requestBefore ? ` after a request (the article’s ~${g.articleGapS ?? g.gapS + HARNESS_S} s less the harness’s ~${HARNESS_S} s)` : ' after provisioning'}, keep-alive ${v}, idle timeout ${ctx.where === 'local' ? `${idleTimeoutS} s` : 'the service’s'}, prewarm ${g.prewarm ? 'on' : 'off'}, PC ${pc}, ${memoryMb} MB`;
      const label = `${stepName(g)} keep-alive ${v} (${settings})`;
      const articleText = (pick: (c: ProvisionedCall) => string, what: string) =>
        a === undefined
          ? g.prewarm
            ? `no call after this gap in the article’s ${tableName(v)}`
            : 'no such run in the article (it always created its client at init)'
          : `${pick(a)} (${what}, ${tableName(v)})${others.length > 0 ? `; its other calls after ~${g.articleGapS} s: ${others.map(pick).join(', ')}` : ''}`;
      const portText = (c: ProvisionedCall) =>
        `${c.newConnection ? 'yes: the port changed' : 'no: the port was kept'} after ${c.sinceS ?? 90} s`;
      if (g.articleGapS === 90 && g.prewarm)
        out.push(
          row({
            metric: `${label}: the provisioned environment’s Init Duration (at provisioning)`,
            kind: 'init',
            statistic: 'single',
            article: f.initDurationMs[v],
            articleText: `${f.initDurationMs[v]} ms (the first request’s REPORT, ${tableName(v)})`,
            measured: step?.group('dynamodb', v, 'get')?.coldStarts.init.p50,
            unit: 'ms',
            why: `the get function’s INIT_REPORT, written at provisioning before any request (the first request waits none of it, as the article’s came ~1.5 min after): Lambda’s sandbox and runtime start, modeled (${coldStartModelNote(step?.lab)}), the bundle’s module load and the connection opened at init`,
            noMeasure:
              'no INIT_REPORT for the get function in the step (against the deployed stack: npm run report -- --from-cloudwatch)',
            cause: `the model’s figure is an on-demand hello-world’s init; the article’s provisioned init took 1.7 s from INIT_START to its module’s first line (its imports, whose build it does not give, and the runtime’s start, which no published benchmark measures for provisioned environments) and a DynamoDB call at init (${f.initCallMs[v]} ms)`,
          }),
        );
      if (g.articleGapS === 90 && g.prewarm)
        out.push(
          row({
            metric: `${label}: the DynamoDB call made during the provisioned init`,
            kind: 'db',
            statistic: 'single',
            article: f.initCallMs[v],
            articleText: `${f.initCallMs[v]} ms (“getTest” logged while provisioned concurrency was being prepared, ${tableName(v)} run)`,
            measured: step?.initCalls?.('dynamodb', v, 'get')[0],
            unit: 'ms',
            why: `the get function’s prewarm at its provisioned init (one DescribeTable, its first connection: TCP + TLS, and the SDK’s first use in a ${memoryMb} MB environment), timed by the function and read from its log; the article’s call was a GetItem; ${where}`,
            noMeasure:
              'no prewarm line in the get function’s log (against the deployed stack: its CloudWatch log)',
          }),
        );
      if (first && g.articleGapS !== null && g.articleGapS !== 90 && g.prewarm) {
        if (v === 'off') offAfterGap.push(first.dbMs);
        else if (first.newConnection) renewedOn.push(first.dbMs);
        else kept.push(first.dbMs);
      }
      out.push(
        row({
          metric: `${label}: time from the ${g.requestBefore ? 'request before the gap' : 'last create'} to the first read`,
          kind: 'duration',
          statistic: 'single',
          article: a ? (a.sinceS ?? g.articleGapS) : null,
          articleText:
            a === undefined
              ? 'no such gap in the article'
              : a.sinceS === null
                ? '~90 s (provisioning done to the first request, about 1.5 min)'
                : `${a.sinceS} s (the ${tableName(v)}’s start times)`,
          measured: measuredGapS,
          unit: 's',
          why: `measured, not the setting: the gap plus the harness’s own time between phases (Artillery’s stop and start)${g.requestBefore ? '; the request before the gap is the get phase’s uncounted warm-up, answered by the same provisioned environment' : '; the get function’s provisioned environment idled longer still, from its init (before the create phase) to this read'}`,
          noMeasure: 'no request before the gap or no read with a client time',
          // The gap is the step's own setting: the row shows what the harness kept, it predicts nothing.
          role: 'setting',
        }),
        row({
          metric: `${label}: the first read opened a new connection (1 yes, 0 no)`,
          kind: 'connection',
          statistic: 'single',
          article: a === undefined ? null : a.newConnection ? 1 : 0,
          articleText: articleText(portText, 'the logged local port'),
          measured: first ? (first.newConnection ? 1 : 0) : null,
          unit: 'yes/no',
          why:
            v === 'off'
              ? 'keep-alive off: every call opens its own connection, whatever the gap'
              : `${g.prewarm ? 'the connection kept from the request before (or opened at init) survives only if its idle time stays under the idle timeout' : 'without prewarming the first call opens the connection whatever the gap'}; keep-alive cannot keep a connection the server drops`,
          ...(v === 'on'
            ? {
                role: 'calibration' as const,
                cause: `the engines’ ${idleTimeoutS} s idle timeout is fitted to this article’s kept and changed ports (kept after ${f.keptAfterS} s, changed after ${f.droppedAfterS} s); no AWS page gives DynamoDB’s`,
              }
            : {}),
        }),
        row({
          metric: `${label}: the first read’s database time`,
          kind: 'db',
          statistic: 'single',
          article: a?.dbMs ?? null,
          articleText: articleText((c) => `${c.dbMs}`, 'DynamoDB latency, ms'),
          measured: first?.dbMs,
          unit: 'ms',
          why: `a new TCP + TLS connection plus the request, or the request alone on a kept one${g.articleGapS === 90 ? '; the article’s first request after provisioning also paid the client’s first use in a 256 MB function' : ''}; ${where}`,
        }),
        row({
          metric: `${label}: the first read’s function Duration (REPORT)`,
          kind: 'duration',
          statistic: 'single',
          article: a?.durationMs ?? null,
          articleText: articleText((c) => `${c.durationMs}`, 'REPORT Duration, ms'),
          measured: firstDuration,
          unit: 'ms',
          why: 'the article’s handler logged sockets and more around its call (its Durations of ~400 ms at 256 MB held far more than the DynamoDB call); ours only makes the call',
          noMeasure:
            'no REPORT line for the read (against the deployed stack: npm run report -- --from-cloudwatch)',
        }),
      );
    }
  }
  const renewedArticle = f.tableOn.filter((c) => c.newConnection && c.sinceS !== null).map((c) => c.dbMs);
  const offArticle = f.tableOff.filter((c) => c.sinceS !== null).map((c) => c.dbMs);
  out.push(
    row({
      metric: 'keep-alive on: first reads after a gap on a kept connection: database time',
      kind: 'db',
      statistic: 'mean',
      article: mean(f.keptPortMs),
      articleText: `${(mean(f.keptPortMs) ?? 0).toFixed(1)} ms (${f.keptPortMs.join(', ')} ms: every call on a kept port, keep-alive-on table)`,
      measured: mean(kept),
      unit: 'ms',
      why: `one round trip plus the engine’s time, ${kept.length} first read(s) after a ~40 or ~60 s gap; ${where}`,
      noMeasure: 'no first read after a gap kept its connection',
    }),
    row({
      metric: 'keep-alive on: first reads after a gap that opened a new connection: database time',
      kind: 'db',
      statistic: 'mean',
      article: mean(renewedArticle),
      articleText: `${(mean(renewedArticle) ?? 0).toFixed(1)} ms (${renewedArticle.join(', ')} ms: every call on a changed port after an idle minute, keep-alive-on table; “${f.newConnectionMs.low}msから${f.newConnectionMs.high}ms前後”)`,
      measured: mean(renewedOn),
      unit: 'ms',
      why: `a new TCP + TLS connection and the request, after the engine dropped the idle one, ${renewedOn.length} first read(s); ${where}`,
      noMeasure: 'no first read after a gap opened a new connection',
    }),
    row({
      metric: 'keep-alive off: first reads after a gap: database time',
      kind: 'db',
      statistic: 'mean',
      article: mean(offArticle),
      articleText: `${(mean(offArticle) ?? 0).toFixed(1)} ms (${offArticle.join(', ')} ms: every call after the first, keep-alive-off table; “80ms前後”)`,
      measured: mean(offAfterGap),
      unit: 'ms',
      why: `a new TCP + TLS connection on every call, ${offAfterGap.length} first read(s) after a ~20, ~60 or ~65 s gap; ${where}`,
      noMeasure: 'no keep-alive-off read after a gap',
    }),
  );
  return {
    rows: out,
    notReproduced: [
      {
        figure:
          'the tables’ later calls at a repeated gap (a request every ~60 or ~65 s in one environment, up to 8 in a row)',
        reason:
          'each gap runs once, in its own environment; the rows quote the article’s other calls at the same gap beside the first',
      },
    ],
  };
}

export const provisionedIdle: ExperimentDefinition = {
  name: 'provisioned-idle',
  article: SEEDS.provisioned,
  title: 'Provisioned concurrency, a connection opened at init, and an idle gap',
  summary:
    'DynamoDB at 256 MB, provisioned concurrency 1, connection opened at init, keep-alive off and on: the first request after provisioning (~90 s), and a request, a gap (~20, ~40, ~60, ~65 s), a request in one environment; ~90 s again without prewarming',
  articleTargets: ['dynamodb'],
  plan: (ctx): StepPlan[] => {
    const idleTimeoutS = idleTimeoutOf(ctx);
    return gapsOf(ctx).map((g) => ({
      name: stepName(g),
      description: `keep-alive ${g.variants.join(' and ')}: create (one Person), then ${g.requestBefore ? 'one get, ' : ''}a ${g.gapS} s idle gap, then one get, on DynamoDB at ${PROVISIONED_FIGURES.memoryMb} MB with provisioned concurrency ${PROVISIONED_FIGURES.provisionedConcurrency}${g.prewarm ? ' and the connection opened at init' : ', no prewarming'}; engines drop connections idle ${idleTimeoutS} s`,
      targets: ctx.targets.filter((t) => t === 'dynamodb'),
      variants: g.variants,
      operations: ['create', 'get'],
      // One request a phase (open loop, 1/s for 1 s), as the article called its function once after each gap.
      durationS: ctx.durationS ?? 1,
      ratePerS: 1,
      idleGapS: g.gapS,
      // The warm-up is the request before the gap: one arrival, answered by the provisioned environment.
      warmupS: g.requestBefore ? 1 : 0,
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
