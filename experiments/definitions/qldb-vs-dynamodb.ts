/**
 * `qldb-vs-dynamodb` (qldb-vs-dynamodb-optimising.txt): create and get on QLDB (emulated
 * locally) and DynamoDB, keep-alive on and off, under the article's load: Artillery's open
 * loop at 10 arrivals/s for 300 s a phase (--quick: 5 s). Aurora DSQL runs beside them with
 * keep-alive on. The article read Logs Insights avg(@duration) over REPORT lines: QLDB ~40 ms
 * against single-digit ms for DynamoDB, keep-alive roughly halving average and p95, 4
 * SendCommand calls per QLDB request, a bundle of 10.18 MB -> 1.91 MB, cold starts 200 ms
 * (40 %) shorter, and 512 MB the best memory.
 */
import type { KeepAliveVariant, Operation, Target } from '../../core/lab-functions';
import { QLDB_FIGURES, SEEDS } from '../../report/article-figures';
import type { ExperimentRow } from '../../report/report-model';
import { formatBreakdown } from '../../runs/db-commands';
import { coldStartModelNote, LOCAL_MODEL_NOTE, row } from '../rows';
import type {
  ColdStartView,
  ExperimentDefinition,
  ExperimentOutcome,
  PlanContext,
  StepView,
  TuningView,
} from '../types';
import { tuningOf } from './power-tuning';

const STEP = 'article-load';
const DSQL_STEP = 'dsql';
const OPS: readonly Operation[] = ['create', 'get'];
const QUICK_S = 5;
/** The article tuned its QLDB get function: the same tuning run as the power-tuning experiment's. */
const TUNING = 'tune-qldb-get';
/** Bundled against unbundled cold starts of the QLDB get function, alternating. */
const COLD_STARTS = 'cold-starts';
const COLD_RUNS = 5;
const QUICK_COLD_RUNS = 2;

/** Nearest-rank median. */
function p50(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] ?? Number.NaN;
}

function coldWhy(cs: ColdStartView): string {
  return [
    `${cs.bundled.initMs.length} on-demand cold starts of each build, alternating (one uncounted pair first), each answering one get, in the same local lab as the same function: ${cs.memoryMb} MB (CPU share: ${cs.memoryModel}), Node ${cs.node}`,
    `Init Duration here is Lambda’s sandbox and runtime start, modeled (${cs.coldStartModel}), plus the handler module loaded with its client built: Node 24 and SDK v3 (modular) against the article’s Node runtime of 2020 and SDK v2, whose one package loads far more code`,
    'locally the unbundled files are read from the page cache, where a Lambda sandbox reads them from its code store, so the local saving is a floor',
  ].join('; ');
}

const QLDB_LOCAL =
  'QLDB is emulated locally (service shut down 2025-07-31): the lab reproduces its protocol’s round trips, not its journal’s storage time';
const NO_REPORT =
  'no REPORT lines in this step (against the deployed stack, read them with npm run report -- --from-cloudwatch)';

function rows(
  steps: ReadonlyMap<string, StepView>,
  ctx: PlanContext,
  tunings: ReadonlyMap<string, TuningView> = new Map(),
  coldStarts: ReadonlyMap<string, ColdStartView> = new Map(),
): ExperimentOutcome {
  const main = steps.get(STEP);
  const tuned = tunings.get(TUNING);
  const stepOf = (t: Target) => (t === 'dsql' ? steps.get(DSQL_STEP) : main);
  // The article's figure is Logs Insights avg(@duration) over every REPORT line: the function
  // layer (REPORT Duration), cold invocations included (their Duration leaves init out).
  const duration = (t: Target, op: Operation, v: KeepAliveVariant) =>
    stepOf(t)?.layer(t, v, op, 'function') ?? null;
  const where = ctx.where === 'local' ? LOCAL_MODEL_NOTE : 'deployed stack';
  const phaseS = ctx.durationS ?? (ctx.quick ? QUICK_S : QLDB_FIGURES.load.durationS);
  const load =
    phaseS === QLDB_FIGURES.load.durationS
      ? ''
      : `${ctx.quick ? '--quick' : `--duration ${phaseS}`}: ${phaseS} s a phase at ${QLDB_FIGURES.load.ratePerS}/s instead of the article’s ${QLDB_FIGURES.load.durationS} s`;
  const f = QLDB_FIGURES;
  const ran = (t: Target) => (ctx.targets.includes(t) ? undefined : `${t} is not among the targets run`);
  const out: ExperimentRow[] = [];
  for (const op of OPS) {
    out.push(
      row({
        metric: `QLDB ${op}, keep-alive on: average function Duration`,
        kind: 'duration',
        statistic: 'mean',
        article: f.qldbMs,
        articleText: '~40 ms (inserts and queries after tuning)',
        measured: duration('qldb', op, 'on')?.mean,
        unit: 'ms',
        why: [ctx.where === 'local' ? QLDB_LOCAL : 'QLDB ledgers can no longer be created', where, load]
          .filter(Boolean)
          .join('; '),
        noMeasure: ran('qldb') ?? NO_REPORT,
        role: 'calibration',
        cause:
          'the in-region profile’s QLDB service time (p50 11 ms a command) was fitted to this ~40 ms (local/network/profiles.ts): QLDB published no other figure',
      }),
      row({
        metric: `DynamoDB ${op}, keep-alive on: average function Duration`,
        kind: 'duration',
        statistic: 'mean',
        article: null,
        articleText: `single-digit ms (< ${f.dynamodbBelowMs}, a bound, not a figure)`,
        measured: duration('dynamodb', op, 'on')?.mean,
        unit: 'ms',
        why: [`one HTTPS request on a kept connection plus the handler’s own time`, where, load]
          .filter(Boolean)
          .join('; '),
        noMeasure: NO_REPORT,
      }),
      row({
        metric: `Aurora DSQL ${op}, keep-alive on: average function Duration`,
        kind: 'duration',
        statistic: 'mean',
        article: null,
        articleText: 'not in the article (DSQL came out in 2024)',
        measured: duration('dsql', op, 'on')?.mean,
        unit: 'ms',
        why: `PostgreSQL protocol on one connection per environment; ${ctx.where === 'local' ? 'locally a real PostgreSQL, not DSQL’s distributed commit' : 'deployed cluster'}`,
        noMeasure: ran('dsql') ?? NO_REPORT,
      }),
    );
  }
  const q = duration('qldb', 'get', 'on')?.mean;
  const d = duration('dynamodb', 'get', 'on')?.mean;
  out.push(
    row({
      metric: 'QLDB / DynamoDB average function Duration, get, keep-alive on',
      kind: 'duration',
      statistic: 'mean ratio',
      article: null,
      articleText: `> 4x (~${f.qldbMs} ms vs single-digit ms, a bound)`,
      measured: q !== undefined && d !== undefined && d > 0 ? q / d : null,
      unit: 'x',
      why: 'QLDB pays several round trips per request (start, execute, commit), DynamoDB one; locally both engines are fast, so the ratio is mostly round trips',
      noMeasure: ran('qldb') ?? NO_REPORT,
    }),
  );
  for (const op of OPS) {
    const r = main?.row('qldb', 'on', op);
    const [typical, ...others] = r?.dbCommands?.breakdowns ?? [];
    // The article traced its get function, one request with its session start.
    const withSession = r?.dbCommands?.breakdowns.find((b) => (b.commands.StartSession ?? 0) > 0);
    const share = typical && r?.dbCommands ? typical.calls / r.dbCommands.calls : null;
    const rest = others
      .slice(0, 3)
      .map((b) => `${formatBreakdown(b)} in ${b.calls} call${b.calls === 1 ? '' : 's'}`)
      .join('; ');
    out.push(
      row({
        metric:
          op === 'get'
            ? `QLDB get${withSession ? ` ${formatBreakdown(withSession)}` : ''}: SendCommand calls of a request that starts its session, keep-alive on`
            : typical
              ? `QLDB ${op} ${formatBreakdown(typical)}: SendCommand calls per request, keep-alive on`
              : `QLDB ${op}: SendCommand calls per request, keep-alive on`,
        kind: 'count',
        statistic: op === 'get' ? 'a request that starts its session' : 'most frequent',
        // The article traced the get function only: a create's count has no article figure.
        article: op === 'get' ? f.qldbCommandsPerRequest : null,
        articleText:
          op === 'get'
            ? '4 in X-Ray: StartSession 1, StartTransaction 1, ExecuteStatement 1, CommitTransaction 1'
            : 'not traced (the article traced its get function)',
        measured: op === 'get' ? withSession?.total : typical?.total,
        unit: 'calls',
        why: [
          typical && share !== null
            ? `${Math.round(share * 100)} % of ${r?.dbCommands?.calls} calls sent ${formatBreakdown(typical)}`
            : '',
          op === 'get'
            ? `a request with its StartSession, as the article’s trace had it; the driver here (amazon-qldb-driver-nodejs) keeps its session in a pool per environment, so only an environment’s first read starts one, and a warm read sends ${typical ? typical.total : 'one fewer'}`
            : 'the same count, not the same commands: the article’s 4 were a session start and one statement; the create here reads the GovId before it inserts (so two racing creates conflict instead of both inserting), two ExecuteStatements on a pooled session without StartSession',
          rest ? `other calls: ${rest} (a new environment’s first call adds StartSession)` : '',
          'counted by command name on the driver’s session client, in the timing block’s dbCommands',
        ]
          .filter(Boolean)
          .join('; '),
        noMeasure:
          ran('qldb') ??
          (r
            ? 'the timings carry no dbCommands (written before the lab counted commands by name)'
            : NO_REPORT),
      }),
    );
  }
  out.push(
    row({
      metric: 'DynamoDB get: requests per call, keep-alive on',
      kind: 'count',
      statistic: 'p50',
      article: null,
      articleText: 'one GetItem (no figure)',
      measured: main?.row('dynamodb', 'on', 'get')?.dbRequests?.p50,
      unit: 'calls',
      why: 'one HTTP request per call, counted by the client',
    }),
  );
  for (const t of ['qldb', 'dynamodb'] as const) {
    for (const op of OPS) {
      const ratio = (pick: (l: { mean: number; p95: number }) => number) => {
        const off = duration(t, op, 'off');
        const on = duration(t, op, 'on');
        return off && on && pick(on) > 0 ? pick(off) / pick(on) : null;
      };
      const label = t === 'qldb' ? 'QLDB' : 'DynamoDB';
      const why = `REPORT Duration of every invocation, as the article’s Logs Insights query read it; ${t === 'qldb' ? 'every QLDB command pays the set-up without keep-alive, so the saving grows with the round trips per request' : 'one request per call: the saving is one connection set-up'}`;
      const noMeasure = t === 'qldb' ? (ran('qldb') ?? NO_REPORT) : NO_REPORT;
      out.push(
        row({
          metric: `${label} ${op}: average function Duration, keep-alive off / on`,
          kind: 'duration',
          statistic: 'mean ratio',
          // The article's DynamoDB tuning had "similar improvements" and no number.
          article: t === 'qldb' ? f.keepAliveOffOverOn : null,
          articleText: t === 'qldb' ? '~2x ("roughly halved")' : 'no figure ("similar improvements")',
          measured: ratio((l) => l.mean),
          unit: 'x',
          why,
          noMeasure,
        }),
        row({
          metric: `${label} ${op}: p95 function Duration, keep-alive off / on`,
          kind: 'duration',
          statistic: 'p95 ratio',
          article: t === 'qldb' ? f.keepAliveOffOverOn : null,
          articleText: t === 'qldb' ? '~2x ("also true for the P95")' : 'no figure ("similar improvements")',
          measured: ratio((l) => l.p95),
          unit: 'x',
          why,
          noMeasure,
          cause:
            'a p95 with keep-alive on is set by the service time’s tail (the profile’s p99/p50 of 3.6x, not QLDB’s own, which it never published) and by cold environments’ first calls, which pay the set-up whatever the setting; the article’s p95 came from 3,000 requests over 5 minutes in one region in 2020',
        }),
      );
    }
  }
  const initOf = (t: Target) => main?.row(t, 'on', 'get')?.initMsP50 ?? null;
  const qInit = initOf('qldb');
  const dInit = initOf('dynamodb');
  const coldRatio = qInit !== null && dInit !== null && qInit > 0 ? dInit / qInit : null;
  const cs = coldStarts.get(COLD_STARTS);
  const coldNoMeasure =
    ctx.where === 'aws'
      ? 'the unbundled build runs on the local lab only (npm run experiment -- qldb-vs-dynamodb)'
      : (ran('qldb') ?? 'the cold-starts step did not finish (see the warnings)');
  const bundles = (main?.lab?.bundles ?? []) as readonly { name: string; zippedBytes: number }[];
  // The article's service zip held its four functions packaged together; the lab's keep-alive
  // variants ship the same bundle, so each function counts once.
  const serviceFunctions = ['qldb-create', 'qldb-get', 'dynamodb-create', 'dynamodb-get'];
  const zipOf = (fn: string) =>
    Math.max(
      0,
      ...bundles.filter((b) => b.name === fn || b.name.startsWith(`${fn}-`)).map((b) => b.zippedBytes),
    );
  const serviceZips = serviceFunctions.map(zipOf);
  const serviceZip = serviceZips.every((z) => z > 0) ? serviceZips.reduce((a, b) => a + b, 0) : null;
  out.push(
    row({
      metric: `the service's deployment zip, bundled: its four functions (${serviceFunctions.join(', ')}) together`,
      kind: 'size',
      statistic: 'total',
      article: f.bundleMb.after,
      articleText: `${f.bundleMb.after} MB (webpack, the service's one zip)`,
      measured: serviceZip === null ? null : serviceZip / 1e6,
      unit: 'MB',
      why: `esbuild, minified ESM with the SDK v3 and the QLDB driver inside each function (${serviceZips.map((z) => `${(z / 1e6).toFixed(2)} MB`).join(', ')}); the article’s webpack bundle of SDK v2 (one aws-sdk package with every service) kept more`,
      cause:
        'SDK v3 is modular and esbuild tree-shakes it, where the article bundled SDK v2 whole: the lab’s zip is smaller by the SDK’s own design, not by the model',
      noMeasure:
        ctx.where === 'aws'
          ? 'the deployed stack’s zips are not read here (npm run sizes measures a synth)'
          : ran('qldb'),
    }),
    row({
      metric:
        'the service’s deployment zip, unbundled (node_modules zipped): the QLDB get function’s, whose node_modules the other three share but for the DynamoDB client',
      kind: 'size',
      statistic: 'single',
      article: f.bundleMb.before,
      articleText: `${f.bundleMb.before} MB (node_modules zipped)`,
      measured: cs ? cs.unbundled.zipBytes / 1e6 : null,
      unit: 'MB',
      why: cs
        ? `the handler transpiled by esbuild without bundling (packages external), beside the node_modules npm installs for its imports: ${cs.unbundled.packages.length} packages (dependencies and peers, npm’s layout), ${cs.unbundled.files} files, ${(cs.unbundled.bytes / 1e6).toFixed(1)} MB unzipped; the SDK v3 QLDB Session client and its @smithy modules, where the article zipped SDK v2 (one aws-sdk package with every service) and the serverless framework’s files; the bundled zip of the same function is ${(cs.bundled.zipBytes / 1e6).toFixed(2)} MB (${Math.round(cs.unbundled.zipBytes / cs.bundled.zipBytes)}x smaller)`
        : 'the unbundled build of the QLDB get function (this experiment’s cold-starts step)',
      noMeasure: coldNoMeasure,
    }),
  );
  out.push(
    row({
      metric: 'QLDB get cold start: Init Duration saved by bundling (unbundled - bundled)',
      kind: 'init',
      statistic: 'p50',
      article: f.coldInitSavedMs,
      articleText: '200 ms ("a decrease of 40%")',
      measured: cs ? p50(cs.unbundled.initMs) - p50(cs.bundled.initMs) : null,
      unit: 'ms',
      why: cs
        ? `bundled p50 ${p50(cs.bundled.initMs).toFixed(1)} ms against unbundled ${p50(cs.unbundled.initMs).toFixed(1)} ms; ${coldWhy(cs)}`
        : 'a saving needs the unbundled function beside the bundled one',
      noMeasure: coldNoMeasure,
    }),
    row({
      metric: 'QLDB get cold start: share of the unbundled Init Duration saved by bundling',
      kind: 'init',
      statistic: 'p50 share',
      article: f.coldInitSavedShare,
      articleText: '0.4 ("a decrease of 40%")',
      measured: cs ? 1 - p50(cs.bundled.initMs) / p50(cs.unbundled.initMs) : null,
      unit: 'share',
      why: cs ? coldWhy(cs) : 'a saving needs the unbundled function beside the bundled one',
      noMeasure: coldNoMeasure,
    }),
    row({
      metric: 'cold start, get, keep-alive on: DynamoDB’s Init Duration over QLDB’s',
      kind: 'init',
      statistic: 'p50 ratio',
      article: f.dynamodbColdOverQldb,
      articleText: '0.6 ("around 40% less than that of QLDB", an average over a minimal data set)',
      measured: coldRatio,
      unit: 'x',
      why: `Init Duration p50 of each get function’s cold starts in the main step, from the REPORT lines: Lambda’s sandbox and runtime start, which both pay alike (${coldStartModelNote(main?.lab)}), plus each bundle’s module load (the QLDB driver and its Ion parser against the DynamoDB client)`,
      cause:
        'the module loads differ less than the article’s: SDK v3’s modular clients, bundled, against the article’s SDK v2 package of 2020, loaded whole by both functions beside the QLDB driver',
      noMeasure: ran('qldb') ?? 'no cold start of either get function in the step',
    }),
    row({
      metric: 'QLDB get function: the best memory size, cost against speed',
      kind: 'duration',
      statistic: 'Power Tuning balanced',
      article: f.powerTuningBalancedMb,
      articleText: '512 MB ("works best in terms of the trade off between cost and performance")',
      measured: tuned?.power,
      unit: 'MB',
      why: tuned
        ? `Power Tuning’s balanced strategy over ${tuned.plan.powerValues.join(', ')} MB, ${tuned.plan.num} invocations each, every size under its CPU share (the power-tuning experiment runs the same on four functions); locally the database time does not shrink with memory, only the client’s CPU work does, so the trade-off can fall elsewhere than the article’s`
        : 'Power Tuning’s balanced strategy (this experiment’s tuning step, or npm run experiment -- power-tuning)',
      noMeasure:
        ctx.where === 'aws'
          ? 'the experiment tunes on the local lab only; on the deployed stack run npm run tune -- --function qldb-get --strategy balanced'
          : (ran('qldb') ?? 'the tuning step did not finish (see the warnings)'),
    }),
  );
  return { rows: out };
}

export const qldbVsDynamodb: ExperimentDefinition = {
  name: 'qldb-vs-dynamodb',
  article: SEEDS.qldb,
  title: 'QLDB against DynamoDB, and what keep-alive does to each',
  summary:
    'create and get on QLDB (emulated) and DynamoDB, keep-alive on and off, and DSQL with keep-alive on: open loop at 10/s for 300 s a phase as the article ran Artillery (--quick: 5 s)',
  articleTargets: ['qldb', 'dynamodb', 'dsql'],
  plan: (ctx) => {
    const durationS = ctx.durationS ?? (ctx.quick ? QUICK_S : QLDB_FIGURES.load.durationS);
    return [
      {
        name: STEP,
        description: `create then get on QLDB and DynamoDB, keep-alive on and off, ${durationS} s a phase at ${QLDB_FIGURES.load.ratePerS}/s (Artillery’s open loop, as the article ran it)`,
        targets: (['dynamodb', 'qldb'] as const).filter((t) => ctx.targets.includes(t)),
        variants: ['on', 'off'],
        operations: [...OPS],
        durationS,
        ratePerS: QLDB_FIGURES.load.ratePerS,
        notToday: {
          targets: ['qldb'],
          reason: 'QLDB was shut down on 2025-07-31: it has no today, and its rows’ today column stays empty',
        },
      },
      {
        name: DSQL_STEP,
        description: `create then get on DSQL, keep-alive on, ${durationS} s a phase at ${QLDB_FIGURES.load.ratePerS}/s`,
        targets: ctx.targets.filter((t) => t === 'dsql'),
        variants: ['on'],
        operations: [...OPS],
        durationS,
        ratePerS: QLDB_FIGURES.load.ratePerS,
        todayOnly: 'Aurora DSQL came out in 2024: the article never ran it, so it has no article conditions',
      },
    ];
  },
  // The article's "512 MB" row needs a tuning: the QLDB get function's, as the article ran it.
  tunings: (ctx) => (ctx.targets.includes('qldb') ? [tuningOf('qldb-get', ctx)] : []),
  // The article's bundle and cold-start rows need the function unbundled beside its bundle.
  coldStarts: (ctx) =>
    ctx.targets.includes('qldb')
      ? [
          {
            name: COLD_STARTS,
            description: `the QLDB get function bundled (the synthesized asset) and unbundled (transpiled, node_modules copied): zip bytes, and ${ctx.quick ? QUICK_COLD_RUNS : COLD_RUNS} cold starts of each, alternating`,
            function: 'qldb-get',
            runs: ctx.quick ? QUICK_COLD_RUNS : COLD_RUNS,
          },
        ]
      : [],
  rows,
};
