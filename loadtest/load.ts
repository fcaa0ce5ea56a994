/**
 * `npm run load`: Artillery + Faker against the lab, each target x keep-alive variant,
 * a create phase then the chosen operations (default: get), and a table that says what
 * keep-alive is worth.
 * Without `--target aws` it starts the whole lab locally first (what `npm run local`
 * starts) and stops everything it started, by PID, however the run ends.
 */
import { mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from '../core/errors';
import { installInterruptHandler } from '../core/interrupt';
import {
  KEEP_ALIVE_VARIANTS,
  OPERATIONS,
  prewarmNote,
  TARGETS,
  type Target,
  targetInfo,
  targetLabel,
  targetNotice,
} from '../core/lab-functions';
import { RESULTS_DIR } from '../core/paths';
import {
  COMPUTE_ARGS,
  COMPUTE_HELP,
  coldStartOption,
  computeOptions,
  engineHelp,
  engineOption,
  intOption,
  listOption,
  memoryListOption,
  NETWORK_HELP,
  networkOptions,
  numberOption,
  seedOption,
  UsageError,
} from '../local/cli/options';
import { DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_ENVIRONMENTS } from '../local/lab-defaults';
import { KEEP_ALIVE_FIGURES } from '../report/article-figures';
import type { LabRow } from '../runs/results';
import { loadTargetModules } from '../targets/registry';
import { DEFAULT_LOAD_S, defaultPhaseS, MAX_DEFAULT_PHASE_S, MIN_DEFAULT_PHASE_S } from './default-duration';
import { ENGINE_LOG_FILE } from './load-defaults';

// Target modules LAB_TARGET_MODULES names join the registry before anything lists the targets.
await loadTargetModules();

const HELP = `Usage: npm run load -- [options]

  --duration S          seconds per phase (default: ${DEFAULT_LOAD_S} s of load shared by the phases,
                        from ${MIN_DEFAULT_PHASE_S} to ${MAX_DEFAULT_PHASE_S} s each: 3 s each for 4 targets x 2 variants x
                        create, get, so the first run ends in a few minutes; give --duration
                        60 or more for tighter p99s)
  --rate N              arrivals per second, an open loop (default 10)
  --parallel LIST       a closed loop instead: N workers, each sending its next request as soon
                        as the last one answered; a comma list (1,10,100) runs each level in its
                        own folder (parallel-N/) and one summary.json holds every level's rows
  --idle-gap S          before each phase after create: a short warm-up of it, then S seconds
                        with no traffic, so kept connections age (default 0: none)
  --targets LIST        comma list of ${TARGETS.join(', ')} (default: every target
                        whose engine is here; one line names each one skipped and the command
                        that adds it; with --target aws, every target the stack deployed).
                        A target named here whose engine is missing: exit 2, nothing started
  --keep-alive LIST     comma list of on, off (default on,off)
  --memory LIST         function memory, MB (128-10240): one value runs every function at it;
                        a comma list compares sizes, a phase per target x keep-alive x size
                        (default: the template's, 512). Locally memory is CPU: docs/local-lab.md
  --operations LIST     comma list of ${OPERATIONS.join(', ')} (default create,get), one phase
                        each, create first: get, overwrite and update work on what it wrote
  --out DIR             where results go (default results/<timestamp>)
  --prices FILE         price file for the cost columns (default core/prices/us-east-1.json;
                        core/prices/ holds Lambda's and API Gateway's per region, each with unit,
                        source, date; each target's prices for the file's region join them)
  --target local|aws    local lab (default) or the deployed stack
Local lab:
${NETWORK_HELP}
${COMPUTE_HELP}
${engineHelp(24)}
  --data DIR            keep the engines' data on disk
  --max-envs N          most execution environments per function (default ${DEFAULT_MAX_ENVIRONMENTS})
  --node PATH           Node executable of the environments (default: Lambda's Node 24, pinned)
  --idle-timeout S      engines close connections idle this long (default ${DEFAULT_IDLE_TIMEOUT_S})
  --reclaim-idle S      end an execution environment idle this long, as Lambda reclaims idle ones
                        (default: never; Lambda takes minutes, so a short run compresses it)
  --prewarm-connection  each function's init opens its database connection${prewarmNote()}
Deployed stack (--target aws):
  --region R --profile P --stack-prefix NAME (default LatencyLab); with --target aws,
                        --profile is the AWS CLI profile
Load from many machines (with --target aws; see docs/deploying.md):
  --platform P          aws:lambda or aws:fargate: Artillery's distributed runner in your account
                        (run-lambda / run-fargate); --rate and --parallel stay the totals, divided
                        among the workers. Reads pick among Persons seeded from here first
  --count N             workers (default 1)
  --workers-region R    where the workers run (default: --region, else AWS_REGION)
  --worker-role R       aws:lambda: the workers' role ARN; aws:fargate: the task role's name
                        (default: the role Artillery creates; the API needs execute-api:Invoke)
  --spot                aws:fargate: Fargate Spot
`;

/** One line per target x keep-alive x phase run at several memory sizes: warm function p50 at each. */
function memoryComparison(rows: readonly LabRow[]): string[] {
  const out: string[] = [];
  // A --parallel list runs each level apart: sizes are compared within a level.
  const keyOf = (r: LabRow) =>
    `${r.target} keep-alive ${r.keepAlive} ${r.phase}${r.parallel === null ? '' : ` parallel ${r.parallel}`}`;
  const keys = [...new Set(rows.map(keyOf))];
  for (const key of keys) {
    const sized = rows.filter((r) => keyOf(r) === key && r.memoryMb !== undefined && r.functionMs);
    if (sized.length < 2) continue;
    const largest = sized.reduce((a, b) => ((b.memoryMb ?? 0) > (a.memoryMb ?? 0) ? b : a));
    const base = largest.functionMs?.p50 ?? 0;
    const parts = sized.map(
      (r) =>
        `${r.functionMs?.p50.toFixed(1)} ms at ${r.memoryMb} MB${r !== largest && base > 0 ? ` (${((r.functionMs?.p50 ?? 0) / base).toFixed(1)}x)` : ''}`,
    );
    const modeled = sized.every((r) => r.cpu?.vcpus !== null) ? '' : ' [memory not modeled]';
    out.push(`Memory, ${key}: function p50 ${parts.join(', ')}${modeled}.`);
  }
  return out;
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').replace('Z', '');
}

runCli(
  async () => {
    const { values } = parseArgs({
      options: {
        duration: { type: 'string' },
        rate: { type: 'string' },
        parallel: { type: 'string' },
        'idle-gap': { type: 'string' },
        'idle-timeout': { type: 'string' },
        'reclaim-idle': { type: 'string' },
        'prewarm-connection': { type: 'boolean' },
        targets: { type: 'string' },
        'keep-alive': { type: 'string' },
        memory: { type: 'string' },
        operations: { type: 'string' },
        out: { type: 'string' },
        prices: { type: 'string' },
        target: { type: 'string' },
        rtt: { type: 'string' },
        seed: { type: 'string' },
        'cold-start': { type: 'string' },
        ...COMPUTE_ARGS,
        engine: { type: 'string' },
        data: { type: 'string' },
        'max-envs': { type: 'string' },
        node: { type: 'string' },
        region: { type: 'string' },
        profile: { type: 'string' },
        'stack-prefix': { type: 'string' },
        platform: { type: 'string' },
        count: { type: 'string' },
        'workers-region': { type: 'string' },
        'worker-role': { type: 'string' },
        spot: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(HELP);
      return 0;
    }
    const durationGiven = values.duration !== undefined;
    const durationArg = durationGiven ? intOption('duration', values.duration, 1, 3600, 1) : undefined;
    const ratePerS = numberOption('rate', values.rate, 0.1, 10_000, 10);
    if (values.parallel !== undefined && values.rate !== undefined)
      throw new UsageError('--parallel (closed loop) and --rate (open loop) exclude each other');
    const levels =
      values.parallel === undefined
        ? [undefined]
        : [...new Set(values.parallel.split(',').map((v) => intOption('parallel', v.trim(), 1, 1000, 1)))];
    const idleGapS = numberOption('idle-gap', values['idle-gap'], 0, 3600, 0);
    const idleTimeoutS = intOption('idle-timeout', values['idle-timeout'], 1, 86_400, DEFAULT_IDLE_TIMEOUT_S);
    const reclaimIdleS =
      values['reclaim-idle'] === undefined
        ? undefined
        : numberOption('reclaim-idle', values['reclaim-idle'], 0.1, 86_400, 0.1);
    const requested =
      values.targets === undefined ? undefined : listOption('targets', values.targets, TARGETS, []);
    const variants = listOption('keep-alive', values['keep-alive'], KEEP_ALIVE_VARIANTS, ['on', 'off']);
    const operations = listOption('operations', values.operations, OPERATIONS, ['create', 'get']);
    const memories = memoryListOption(values.memory);
    const { orderPhases } = await import('./load-phases');
    try {
      orderPhases(operations);
    } catch (e) {
      throw new UsageError(`--operations: ${(e as Error).message}`);
    }
    const where = values.target ?? 'local';
    if (where !== 'local' && where !== 'aws')
      throw new UsageError(`--target must be local or aws, got ${JSON.stringify(where)}`);
    if (memories.length > 0 && where === 'aws')
      throw new UsageError(
        '--memory compares sizes on the local lab; a deployed stack runs the memory it was deployed with (npx cdk deploy -c memorySize=MB)',
      );
    if (values.platform && where !== 'aws')
      throw new UsageError('--platform needs --target aws: a cloud runner cannot reach 127.0.0.1');
    const { checkWorkers, CLOUD_PLATFORMS, isCloudPlatform } = await import('./artillery-platform');
    const workerFlags = ['count', 'workers-region', 'worker-role', 'spot'] as const;
    if (!values.platform && workerFlags.some((f) => values[f] !== undefined))
      throw new UsageError('--count, --workers-region, --worker-role and --spot go with --platform');
    if (values.platform !== undefined && !isCloudPlatform(values.platform))
      throw new UsageError(
        `--platform must be one of ${CLOUD_PLATFORMS.join(', ')}, got ${JSON.stringify(values.platform)}`,
      );
    let workers: import('./artillery-platform').Workers | undefined;
    if (isCloudPlatform(values.platform)) {
      const region =
        values['workers-region'] ?? values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
      if (!region)
        throw new UsageError(
          "--platform needs the workers' region: --workers-region R (or --region, AWS_REGION)",
        );
      workers = {
        platform: values.platform,
        count: intOption('count', values.count, 1, 1000, 1),
        region,
        ...(values['worker-role'] ? { role: values['worker-role'] } : {}),
        ...(values.spot ? { spot: true } : {}),
      };
      try {
        checkWorkers(workers, durationArg);
      } catch (e) {
        throw new UsageError(`--platform: ${(e as Error).message}`);
      }
      // Every worker runs the whole script: a closed loop's users are divided among them.
      const count = workers.count;
      const odd = levels.find((p) => p !== undefined && p % count !== 0);
      if (odd !== undefined)
        throw new UsageError(
          `--parallel ${odd} does not divide among --count ${count} workers: give a multiple of ${count}`,
        );
    }
    const engine = engineOption(values.engine);
    // --profile names the network profile locally, the AWS CLI profile with --target aws.
    const network = where === 'local' ? networkOptions(values.profile, values.rtt) : {};
    if (where === 'aws' && values.rtt !== undefined)
      throw new UsageError("--rtt models the local lab's network: a deployed stack has its own");
    const seed = seedOption(values.seed);
    const coldStart = coldStartOption(values['cold-start']);
    const { context: computeContext, ...compute } = computeOptions(values);
    if (where === 'aws' && values.compute !== undefined)
      throw new UsageError('--compute runs the local lab as Managed Instances: a deployed stack has its own');
    const maxEnvironments = intOption('max-envs', values['max-envs'], 1, 200, DEFAULT_MAX_ENVIRONMENTS);
    // A bad price file is a usage error before any engine starts.
    const pricesFile = values.prices === undefined ? undefined : resolve(values.prices);
    const { loadPriceFile, priceFileLabel } = await import('../core/price-file');
    let pricesLabel: string;
    try {
      pricesLabel = priceFileLabel(loadPriceFile(pricesFile));
    } catch (e) {
      throw new UsageError(`--prices: ${(e as Error).message}`);
    }
    // Which targets run: checked before anything starts (a named target's missing engine is exit 2).
    let targets: Target[];
    const skipped: string[] = [];
    if (where === 'aws') targets = requested ?? [...TARGETS];
    else {
      const { chooseTargets, skippedLines } = await import('../local/targets/choose-targets');
      const chosen = await chooseTargets({ requested, log: (line) => console.log(line) });
      targets = chosen.targets;
      skipped.push(...skippedLines(chosen));
    }
    for (const line of skipped) console.log(line);
    const phaseCount =
      (where === 'aws' && requested === undefined ? 1 : targets.length) *
      variants.length *
      orderPhases(operations).length *
      Math.max(1, memories.length);
    const durationS = durationArg ?? defaultPhaseS(phaseCount);
    if (!durationGiven)
      console.log(
        `Phases of ${durationS} s (the default: ${DEFAULT_LOAD_S} s of load over ${phaseCount} phases, ${MIN_DEFAULT_PHASE_S}-${MAX_DEFAULT_PHASE_S} s each); --duration 60 gives tighter percentiles`,
      );
    const outDir = resolve(values.out ?? join(RESULTS_DIR, stamp()));
    mkdirSync(outDir, { recursive: true });

    // Ctrl-C, SIGTERM or SIGHUP: stop Artillery, then the lab, then exit with the signal's code
    // (core/interrupt.ts; a second Ctrl-C quits at once, ending the lab's processes).
    const signal = installInterruptHandler();
    // The SDK's own multi-line Node warning is replaced by the lab's one line, as npm run local does.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    const { nodeEndOfLifeNotice } = await import('../local/cli/start-screen');
    const eol = nodeEndOfLifeNotice(process.version);
    if (eol) console.log(eol);

    const { runLoad } = await import('./run-load');
    const runLevel = (parallel: number | undefined, levelDir: string) =>
      runLoad({
        outDir: levelDir,
        targets,
        ...(where === 'aws' && requested === undefined ? { deployedOnly: true } : {}),
        variants,
        operations,
        durationS,
        ratePerS,
        parallel,
        idleGapS,
        where,
        prices: pricesFile,
        local: {
          engine,
          ...network,
          ...coldStart,
          seed,
          dataDir: values.data,
          maxEnvironments,
          nodePath: values.node,
          idleTimeoutS,
          reclaimIdleS,
          memories,
          ...compute,
          context: {
            ...computeContext,
            ...(values['prewarm-connection'] ? { prewarmConnection: 'true' } : {}),
          },
        },
        aws: {
          region: values.region,
          profile: where === 'aws' ? values.profile : undefined,
          stackPrefix: values['stack-prefix'],
          ...(workers ? { workers } : {}),
        },
        signal,
        log: (line) => console.log(line),
        logError: (line) => console.error(line),
      });
    let run: Awaited<ReturnType<typeof runLevel>>;
    if (levels.length === 1) run = await runLevel(levels[0], outDir);
    else {
      // Each level a run of its own (its lab, Artillery files, timings and report), one summary.
      const runs: { parallel: number; dir: string; run: Awaited<ReturnType<typeof runLevel>> }[] = [];
      for (const parallel of levels as number[]) {
        console.log(`\n##### --parallel ${parallel}`);
        const dir = join(outDir, `parallel-${parallel}`);
        const level = await runLevel(parallel, dir);
        if (level.interrupted) return 130;
        runs.push({ parallel, dir, run: level });
      }
      const { writeLevelsSummary } = await import('./load-phases');
      writeLevelsSummary(
        outDir,
        runs.map(({ parallel, dir }) => ({ parallel, dir })),
      );
      run = {
        rows: runs.flatMap((r) => r.run.rows),
        failed: runs.flatMap((r) => r.run.failed),
        url: runs[0].run.url,
        interrupted: false,
        reportHtml: runs[0].run.reportHtml,
        network: runs[0].run.network,
        engineLog: runs[0].run.engineLog,
      };
    }
    if (run.interrupted) return 130;
    const { rows, failed } = run;
    const { formatSummaryTable } = await import('./summary-table');
    console.log(`\n${formatSummaryTable(rows)}\n`);
    if (run.network) console.log(run.network);
    if (rows.some((r) => r.cost)) {
      // Each target names its own units (its cost part); one without a part bills no database unit.
      const { registeredCosts } = await import('../core/cost-registry');
      const ran = new Set(rows.map((r) => r.target));
      const units = registeredCosts()
        .filter((c) => ran.has(c.target))
        .flatMap((c) => Object.values(c.units));
      console.log(
        `Cost: $ per million requests at ${pricesLabel}: Lambda (requests + GB-s of Billed Duration, init included), API (REST API calls), database (${units.length === 0 ? 'no target run bills a unit of its own' : units.join(', ')}); free tiers and storage not included.`,
      );
    }
    // Provisioned concurrency is billed while configured, requests or not: its own line, per hour.
    const idle = rows.find((r) => r.cost?.provisionedIdle)?.cost?.provisionedIdle;
    if (idle)
      console.log(
        `Provisioned concurrency ${idle.concurrency} x ${idle.memoryMb} MB per function: ${idle.usdPerHour === null ? `unpriced (${idle.unpriced})` : `$${idle.usdPerHour.toFixed(4)} per hour`} while configured, requests or not (summary.json: cost.provisionedIdle, reserved GB-s over each phase; not in $ per million).`,
      );
    for (const t of targets) {
      const notice = targetNotice(t);
      if (notice && where === 'local') console.log(notice);
    }
    for (const t of new Set(rows.map((r) => r.target))) {
      const dbOn = rows.find((r) => r.target === t && r.keepAlive === 'on' && r.phase === 'get')?.dbMs?.p50;
      const dbOff = rows.find((r) => r.target === t && r.keepAlive === 'off' && r.phase === 'get')?.dbMs?.p50;
      if (dbOn && dbOff) {
        console.log(
          `Keep-alive, ${targetLabel(t)} get: database time p50 ${dbOff.toFixed(1)} ms without, ${dbOn.toFixed(1)} ms with (${(dbOff / dbOn).toFixed(1)}x${targetInfo(t)?.baseline ? `; the articles saw ${KEEP_ALIVE_FIGURES.putAvgMs.off} ms vs ${KEEP_ALIVE_FIGURES.putAvgMs.on} ms` : ''}).`,
        );
      }
    }
    for (const line of memoryComparison(rows)) console.log(line);
    const { compareTargets, comparisonLines, formatComparisonTable } = await import('../runs/comparison');
    const comparison = compareTargets(rows);
    if (comparison) {
      console.log(
        `\nTargets compared (client p50 and p99 in ms, as Artillery saw them; db p50 from the handlers; each target at its faster keep-alive variant in the verdict):\n\n${formatComparisonTable(comparison)}\n`,
      );
      for (const line of comparisonLines(comparison)) console.log(line);
    }
    for (const line of skipped) console.log(line);
    console.log(
      `Results in ${relative(process.cwd(), outDir) || '.'}: summary.json, artillery-*.json, timings.jsonl${where === 'local' ? `, lambda-logs.log, ${ENGINE_LOG_FILE} (the engines' own lines)` : ''}`,
    );
    if (run.reportHtml)
      console.log(`Report: ${relative(process.cwd(), run.reportHtml)} (and report.md, report.json)`);
    const errors = rows.reduce((s, r) => s + r.errors, 0);
    if (errors > 0) console.error(`${errors} requests failed: exit status 1`);
    for (const f of failed) {
      console.error(
        `Phase ${targetLabel(f.target)} keep-alive ${f.keepAlive} ${f.phase} failed: ${f.reason}`,
      );
    }
    // The engines' lines stay off the terminal; where something failed, say where they are.
    if ((errors > 0 || failed.length > 0) && run.engineLog)
      console.error(
        `The engines' own logs: ${relative(process.cwd(), run.engineLog)} (the functions': lambda-logs.log beside it)`,
      );
    const { loadExitCode } = await import('./load-phases');
    return loadExitCode(rows, failed);
  },
  { program: 'load' },
);
