/**
 * `npm run load`: Artillery + Faker against the lab, each target x keep-alive variant,
 * a create phase then the chosen operations (default: get), and a table that says what
 * keep-alive is worth.
 * Without `--target aws` it starts the whole lab locally first (what `npm run local`
 * starts) and stops everything it started, by PID, however the run ends.
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../core/errors';
import {
  basePath,
  KEEP_ALIVE_VARIANTS,
  type KeepAliveVariant,
  OPERATIONS,
  parseFunctionKey,
  TARGET_INFO,
  TARGETS,
  type Target,
} from '../core/lab-functions';
import { RESULTS_DIR } from '../core/paths';
import { engineOption, intOption, listOption, numberOption, UsageError } from '../local/cli/options';
import type { RunningLab } from '../local/lab';
import { DEFAULT_MAX_ENVIRONMENTS, DEFAULT_RTT_MS, localSigningEnv } from '../local/lab-defaults';

type Variant = KeepAliveVariant;

const HELP = `Usage: npm run load -- [options]

  --duration S          seconds per phase (default 20)
  --rate N              arrivals per second (default 10)
  --targets LIST        comma list of ${TARGETS.join(', ')} (default dynamodb)
  --keep-alive LIST     comma list of on, off (default on,off)
  --operations LIST     comma list of ${OPERATIONS.join(', ')} (default create,get), one phase
                        each, create first: get, overwrite and update work on what it wrote
  --out DIR             where results go (default results/<timestamp>)
  --target local|aws    local lab (default) or the deployed stack
Local lab:
  --rtt MS              emulated round trip to the database (default ${DEFAULT_RTT_MS})
  --engine NAME         dynalite (default) or dynamodb-local
  --data DIR            keep the engines' data on disk
  --max-envs N          most execution environments per function (default ${DEFAULT_MAX_ENVIRONMENTS})
  --node PATH           Node executable of the environments (default: Lambda's Node 24, pinned)
Deployed stack (--target aws):
  --region R --profile P --stack-prefix NAME (default LatencyLab)
  --platform aws:lambda run Artillery's distributed runner in your account (its own region option applies)
`;

interface Plan {
  readonly url: string;
  readonly basePath: (target: string, variant: Variant) => string;
  readonly env: Record<string, string>;
  readonly targets: readonly Target[];
  readonly variants: readonly Variant[];
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

/** Cold starts and their Init Duration, from the REPORT (and INIT_REPORT) lines of one function. */
async function initStats(lines: readonly string[]): Promise<{ initMsP50: number | null; inits: number }> {
  const { parseLambdaLog } = await import('../runs/lambda-log-parser');
  const { LatencyHistogram } = await import('../runs/latency-histogram');
  const parsed = parseLambdaLog(lines.join('\n'));
  const h = new LatencyHistogram();
  for (const r of parsed.reports) if (r.initDurationMs !== undefined) h.record(r.initDurationMs);
  for (const i of parsed.inits) if (i.status === 'success') h.record(i.initDurationMs);
  const out = { initMsP50: h.count > 0 ? h.percentile(50) : null, inits: h.count };
  h.destroy();
  return out;
}

async function planAws(
  values: Record<string, string | boolean | undefined>,
  targets: Target[],
  variants: Variant[],
) {
  // Loaded only for cloud runs: the local lab needs no AWS SDK clients in this process.
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  const { resolveAwsOptions, sdkClientConfig } = await import('../aws/aws-options');
  const { readLabOutputs } = await import('../aws/stack-outputs');
  const aws = resolveAwsOptions({
    region: values.region as string | undefined,
    profile: values.profile as string | undefined,
    'stack-prefix': values['stack-prefix'] as string | undefined,
  });
  const outputs = await readLabOutputs(new CloudFormationClient(sdkClientConfig(aws)), aws.stackPrefix);
  const deployed = outputs.functions.map((f) => parseFunctionKey(f.key)).filter((p) => p !== undefined);
  const both = deployed.some((p) => p.keepAlive !== undefined);
  for (const t of targets) {
    if (!deployed.some((p) => p.target === t))
      throw new UsageError(`target ${t} is not deployed (deploy with -c targets=...)`);
  }
  if (both === false && variants.length > 1) {
    throw new UsageError(
      'the deployed API has one keep-alive variant: deploy with -c keepAlive=both, or pass --keep-alive on|off',
    );
  }
  const plan: Plan = {
    url: outputs.apiUrl,
    basePath: (t, v) => basePath(t, v, both),
    env: {
      LAB_SIGV4_REGION: outputs.region ?? aws.region,
      ...(aws.profile ? { AWS_PROFILE: aws.profile } : {}),
    },
    targets,
    variants,
  };
  return plan;
}

runCli(
  async () => {
    const { values } = parseArgs({
      options: {
        duration: { type: 'string' },
        rate: { type: 'string' },
        targets: { type: 'string' },
        'keep-alive': { type: 'string' },
        operations: { type: 'string' },
        out: { type: 'string' },
        target: { type: 'string' },
        rtt: { type: 'string' },
        engine: { type: 'string' },
        data: { type: 'string' },
        'max-envs': { type: 'string' },
        node: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        'stack-prefix': { type: 'string' },
        platform: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    const durationS = intOption('duration', values.duration, 1, 3600, 20);
    const ratePerS = numberOption('rate', values.rate, 0.1, 10_000, 10);
    const targets = listOption('targets', values.targets, TARGETS, ['dynamodb']);
    const variants = listOption('keep-alive', values['keep-alive'], KEEP_ALIVE_VARIANTS, ['on', 'off']);
    const operations = listOption('operations', values.operations, OPERATIONS, ['create', 'get']);
    const { orderPhases } = await import('./load-phases');
    try {
      orderPhases(operations);
    } catch (e) {
      throw new UsageError(`--operations: ${(e as Error).message}`);
    }
    const where = values.target ?? 'local';
    if (where !== 'local' && where !== 'aws')
      throw new UsageError(`--target must be local or aws, got ${JSON.stringify(where)}`);
    if (values.platform && where !== 'aws')
      throw new UsageError('--platform needs --target aws: a cloud runner cannot reach 127.0.0.1');
    const engine = engineOption(values.engine);
    const rttMs = numberOption('rtt', values.rtt, 0, 1000, DEFAULT_RTT_MS);
    const maxEnvironments = intOption('max-envs', values['max-envs'], 1, 200, DEFAULT_MAX_ENVIRONMENTS);
    const outDir = resolve(values.out ?? join(RESULTS_DIR, stamp()));
    mkdirSync(outDir, { recursive: true });

    // Ctrl-C or SIGTERM: stop Artillery, then the lab, then exit with the signal's code.
    const abort = new AbortController();
    let interrupted: NodeJS.Signals | undefined;
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      process.once(sig, () => {
        interrupted = sig;
        console.error(`\n${sig}: stopping ...`);
        abort.abort();
      });
    }

    let exitCode = 0;
    const functionLogs = new Map<string, string[]>();
    // A stream, not a write per line: the host calls this for every log line of every invocation.
    const logFile = createWriteStream(join(outDir, 'lambda-logs.log'));
    let lab: RunningLab | undefined;
    try {
      let plan: Plan;
      if (where === 'aws') {
        plan = await planAws(values, targets, variants);
        console.log(`Target: ${plan.url} (deployed stack)`);
      } else {
        const { startLab } = await import('../local/lab');
        lab = await startLab({
          port: 0,
          engine,
          rttMs,
          dataDir: values.data,
          maxEnvironments,
          nodePath: values.node,
          context: { targets: targets.join(','), keepAlive: variants.length > 1 ? 'both' : variants[0] },
          log: (line) => console.log(line),
          onFunctionLog: (fn, line) => {
            logFile.write(`[${fn}] ${line}\n`);
            const list = functionLogs.get(fn) ?? [];
            list.push(line);
            functionLogs.set(fn, list);
          },
        });
        const both = variants.length > 1;
        plan = {
          url: lab.url,
          basePath: (t, v) => basePath(t, v, both),
          env: {
            ...localSigningEnv(),
          },
          targets,
          variants,
        };
        console.log(`Lab API: ${lab.url}`);
      }

      const { runLoadPhases, writeLoadSummary, loadExitCode } = await import('./load-phases');
      const { rows, failed } = await runLoadPhases({
        outDir,
        url: plan.url,
        basePath: (t, v) => plan.basePath(t, v as Variant),
        env: plan.env,
        targets: plan.targets,
        variants: plan.variants,
        operations,
        durationS,
        ratePerS,
        platform: values.platform,
        signal: abort.signal,
        initMsP50: async (target, variant, phase) => {
          const fnLines = [...functionLogs].filter(([fn]) => {
            const p = parseFunctionKey(fn);
            return (
              p?.target === target && p.operation === phase && (p.keepAlive ?? plan.variants[0]) === variant
            );
          });
          return (await initStats(fnLines.flatMap(([, l]) => l))).initMsP50;
        },
        runArtillery: (await import('./artillery-runner')).runArtillery,
        log: (line) => console.log(line),
        logError: (line) => console.error(line),
      });
      if (interrupted) return 130;

      // A failed phase is recorded beside the others: the run keeps its summary and report.
      writeLoadSummary(
        outDir,
        {
          target: where,
          url: plan.url,
          durationS,
          ratePerS,
          ...(where === 'local' ? { engine, rttMs, maxEnvironments } : {}),
        },
        rows,
        failed,
      );
      const { formatSummaryTable } = await import('./summary-table');
      console.log(`\n${formatSummaryTable(rows)}\n`);
      for (const t of plan.targets) {
        const notice = (TARGET_INFO[t] as { notice?: string }).notice;
        if (notice && where === 'local') console.log(notice);
      }
      const dbOn = rows.find((r) => r.keepAlive === 'on' && r.phase === 'get')?.dbMs?.p50;
      const dbOff = rows.find((r) => r.keepAlive === 'off' && r.phase === 'get')?.dbMs?.p50;
      if (dbOn && dbOff) {
        console.log(
          `Keep-alive: database time p50 ${dbOff.toFixed(1)} ms without, ${dbOn.toFixed(1)} ms with (${(dbOff / dbOn).toFixed(1)}x; the articles saw 33 ms vs 10 ms).`,
        );
      }
      console.log(
        `Results in ${relative(process.cwd(), outDir) || '.'}: summary.json, artillery-*.json, timings.jsonl${where === 'local' ? ', lambda-logs.log' : ''}`,
      );
      const errors = rows.reduce((s, r) => s + r.errors, 0);
      if (errors > 0) console.error(`${errors} requests failed: exit status 1`);
      for (const f of failed) {
        console.error(`Phase ${f.target} keep-alive ${f.keepAlive} ${f.phase} failed: ${f.reason}`);
      }
      exitCode = loadExitCode(rows, failed);
    } finally {
      await lab?.stop();
      await new Promise((r) => logFile.end(r));
    }
    // After the log stream is closed: the report reads the whole lambda-logs.log.
    try {
      const { writeReport } = await import('../report/write-report');
      const { files } = await writeReport({ inDir: outDir, outDir });
      console.log(`Report: ${relative(process.cwd(), files.html)} (and report.md, report.json)`);
    } catch (e) {
      // The run's results stand; a report can be rebuilt with npm run report -- --in <dir>.
      console.error(`The report could not be written: ${e instanceof Error ? e.message : String(e)}`);
    }
    return exitCode;
  },
  { program: 'load' },
);
