/**
 * One load run, as a function: the lab (local, or the deployed stack), the phases, summary.json
 * and the report. `npm run load` is this plus its options; `npm run experiment` calls it once
 * per step of an experiment. Heavy modules load here, never on a CLI's --help path.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Cleanup } from '../core/cleanup';
import { InterruptedError } from '../core/errors';
import { type HostLoadSummary, sampleHostLoad } from '../core/host-load';
import {
  basePath,
  type KeepAliveVariant,
  type Operation,
  parseFunctionKey,
  TARGETS,
  type Target,
  type TlsMaxVersion,
} from '../core/lab-functions';
import { LineFile } from '../core/line-file';
import { measureBundles } from '../local/assembly/bundle-size';
import { memoryModelLine } from '../local/host/cgroups';
import { type Architecture, coldStartBlock } from '../local/host/cold-start-model';
import { CFS_PERIOD_US, INIT_BURST_MS, MB_PER_VCPU } from '../local/host/lambda-memory';
import { instancesFor, instanceTypeOf } from '../local/host/managed-instances-model';
import type { RunningLab } from '../local/lab';
import { DEFAULT_IDLE_TIMEOUT_S, DEFAULT_MAX_ENVIRONMENTS, localSigningEnv } from '../local/lab-defaults';
import { linkOf } from '../local/network/profiles';
import { engineChoices } from '../local/targets';
import type { LabRow, TimingLine } from '../runs/results';
import type { ManagedInstancesPhase } from '../runs/run-cost';
import type { Workers } from './artillery-platform';
import type { Bursts } from './bursts';
import { ENGINE_LOG_FILE } from './load-defaults';
import type { FailedPhase } from './load-phases';

export interface RunLoadOptions {
  readonly outDir: string;
  readonly targets: readonly Target[];
  /** With where 'aws': run those of `targets` the stack deployed, instead of refusing the others. */
  readonly deployedOnly?: boolean;
  readonly variants: readonly KeepAliveVariant[];
  readonly operations: readonly Operation[];
  readonly durationS: number;
  /** Open loop: arrivals per second (Artillery's arrival rate). */
  readonly ratePerS: number;
  /**
   * Closed loop instead, as the histogram article ran it: this many workers, each sending its
   * next request as soon as the previous one answered, for durationS. @default open loop
   */
  readonly parallel?: number;
  /** Open loop in bursts of activeS with pauseS of no traffic between (a sparse site). @default steady */
  readonly bursts?: Bursts;
  /** The targets' phases side by side (load-phases.ts targetsAtOnce). @default one after another */
  readonly targetsAtOnce?: boolean;
  /** Seconds to wait before each phase after the first, with no traffic: idle connections age. @default 0 */
  readonly idleGapS?: number;
  /** Seconds of the phase's warm-up before a gap; 0: none. @default WARMUP_S (load-defaults) */
  readonly warmupS?: number;
  /**
   * Persons seeded per target x keep-alive before its phases (uncounted); get, overwrite and
   * update then pick among them uniformly at random, seeded by local.seed. @default 0
   */
  readonly seedRecords?: number;
  /** The local lab (default), or the deployed stack. */
  readonly where: 'local' | 'aws';
  /** The price file the cost block uses. @default core/prices/us-east-1.json */
  readonly prices?: string;
  readonly local?: {
    readonly engine?: string;
    /** The network profile. @default DEFAULT_PROFILE (local/network/profiles.ts) */
    readonly profile?: string;
    /** Every target's round trip instead of the profile's, ms. */
    readonly rttMs?: number;
    /** Some targets' round trips instead of the profile's, ms. */
    readonly rttByTarget?: Readonly<Partial<Record<Target, number>>>;
    /** Seeds the service-time draws. @default 1 */
    readonly seed?: number;
    readonly dataDir?: string;
    readonly maxEnvironments?: number;
    readonly nodePath?: string;
    /** The engines close connections idle this long. @default 60 (the provisioned-concurrency article) */
    readonly idleTimeoutS?: number;
    /** The host ends an on-demand environment idle this long, s (Lambda's reclaiming). @default never */
    readonly reclaimIdleS?: number;
    /** The newest TLS version the functions' database clients offer (an article's conditions). @default Node's (1.3) */
    readonly tlsMaxVersion?: TlsMaxVersion;
    /** The news site's stories written straight into each engine before the phases (uncounted, seed-stories.ts). @default 0 */
    readonly seedStories?: number;
    /** More context flags for the local synth (provisionedConcurrency, prewarmConnection, ...). */
    readonly context?: Readonly<Record<string, string>>;
    /**
     * Function memory settings to compare, MB: each target x keep-alive runs its phases at
     * each, set on the host (no re-synth). One value runs every function at it. @default the
     * template's MemorySize
     */
    readonly memories?: readonly number[];
    /** Run environments under cgroups when the machine allows. @default true */
    readonly cgroups?: boolean;
    /** Model Lambda's sandbox and runtime start in every init (local/host/cold-start-model.ts). @default true */
    readonly coldStartModel?: boolean;
    /** Model another runtime's init than the template's (an article's conditions). */
    readonly coldStartAs?: { readonly runtime: string; readonly architecture: Architecture };
    /** Lambda Managed Instances (LabOptions.compute, docs/managed-instances.md). @default 'standard' */
    readonly compute?: 'standard' | 'managed-instances';
    /** Managed Instances settings the template does not carry (LabOptions.managedInstances). */
    readonly managedInstances?: { readonly minEnvironments?: number };
  };
  readonly aws?: {
    readonly region?: string;
    readonly profile?: string;
    readonly stackPrefix?: string;
    /** Artillery's distributed runner: its platform, worker count and region (artillery-platform.ts). */
    readonly workers?: Workers;
  };
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
  readonly logError: (line: string) => void;
}

export interface RunLoadResult {
  readonly rows: LabRow[];
  readonly failed: FailedPhase[];
  /** The URL the load ran against. */
  readonly url: string;
  /** The signal stopped the run: no summary, no report. */
  readonly interrupted: boolean;
  /** report.html, when the report could be written */
  readonly reportHtml?: string;
  /** Local runs: one line naming the network profile and each target's link. */
  readonly network?: string;
  /** Local runs: the file holding what the engines, network models and custom resources wrote. */
  readonly engineLog?: string;
}

/** The engines' last lines, shown when the lab fails to start. */
const ENGINE_TAIL_LINES = 15;

interface Plan {
  readonly url: string;
  /** The targets the phases run. */
  readonly targets: readonly Target[];
  readonly basePath: (target: string, variant: KeepAliveVariant) => string;
  readonly env: Record<string, string>;
}

/**
 * Cold starts' Init Duration p50, from the REPORT (and INIT_REPORT) lines of one function; of
 * one memory setting's REPORT lines only when given (an INIT_REPORT line names no memory).
 */
async function initP50(lines: readonly string[], memoryMb?: number): Promise<number | null> {
  const { parseLambdaLog } = await import('../runs/lambda-log-parser');
  const { LatencyHistogram } = await import('../runs/latency-histogram');
  const parsed = parseLambdaLog(lines.join('\n'));
  const h = new LatencyHistogram();
  for (const r of parsed.reports)
    if (r.initDurationMs !== undefined && (memoryMb === undefined || r.memorySizeMb === memoryMb))
      h.record(r.initDurationMs);
  if (memoryMb === undefined)
    for (const i of parsed.inits) if (i.status === 'success') h.record(i.initDurationMs);
  return h.count > 0 ? h.percentile(50) : null;
}

/** Warm invocations' Duration (REPORT lines without Init Duration) of one function at one memory setting. */
/**
 * The phase's cost block: its REPORT lines at its memory (the warm-up before an idle gap is
 * counted apart in warmup-timings, its invocations are not this phase's) and its timing lines.
 */
async function phaseCost(
  lines: readonly string[],
  memoryMb: number | undefined,
  timings: readonly TimingLine[],
  pricesFile: string | undefined,
  provisioned?: { readonly concurrency: number; readonly wallS: number },
  managedInstances?: ManagedInstancesPhase,
  capacity?: { readonly target: string; readonly context: Readonly<Record<string, string>> },
): Promise<LabRow['cost']> {
  const { parseLambdaLog } = await import('../runs/lambda-log-parser');
  const { capacityQuantities } = await import('../core/cost-registry');
  const { runCost } = await import('../runs/run-cost');
  const { loadLabPrices } = await import('../targets/registry');
  const reports = parseLambdaLog(lines.join('\n')).reports.filter(
    (r) => memoryMb === undefined || r.memorySizeMb === memoryMb,
  );
  // The lab's functions run on arm64 behind a REST API (lib/constructs/perf-function.ts, api-stack.ts).
  return runCost(
    {
      reports: reports.slice(-timings.length),
      timings,
      architecture: 'arm64',
      api: 'rest',
      ...(capacity !== undefined && provisioned !== undefined
        ? {
            capacity: capacityQuantities(capacity.target, {
              wallS: provisioned.wallS,
              context: (key) => capacity.context[key],
            }),
          }
        : {}),
      // Reserved while configured, requests or not: the phase's wall time at the phase's memory.
      ...(provisioned !== undefined && provisioned.concurrency > 0 && memoryMb !== undefined
        ? { provisioned: { ...provisioned, memoryMb } }
        : {}),
      // On Managed Instances: its instances' hours, the fee and requests, never GB-seconds.
      ...(managedInstances ? { managedInstances } : {}),
    },
    await loadLabPrices(pricesFile),
  );
}

async function warmDuration(
  lines: readonly string[],
  memoryMb: number | undefined,
): Promise<{ p50: number; p99: number } | null> {
  const { parseLambdaLog } = await import('../runs/lambda-log-parser');
  const { LatencyHistogram } = await import('../runs/latency-histogram');
  const h = new LatencyHistogram();
  for (const r of parseLambdaLog(lines.join('\n')).reports)
    if (r.initDurationMs === undefined && (memoryMb === undefined || r.memorySizeMb === memoryMb))
      h.record(r.durationMs);
  return h.count > 0 ? { p50: h.percentile(50), p99: h.percentile(99) } : null;
}

async function planAws(o: RunLoadOptions): Promise<Plan> {
  // Loaded only for cloud runs: the local lab needs no AWS SDK clients in this process.
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  const { resolveAwsOptions, sdkClientConfig } = await import('../aws/aws-options');
  const { readLabOutputs } = await import('../aws/stack-outputs');
  const { UsageError } = await import('../core/errors');
  const aws = resolveAwsOptions({
    region: o.aws?.region,
    profile: o.aws?.profile,
    'stack-prefix': o.aws?.stackPrefix,
  });
  const outputs = await readLabOutputs(new CloudFormationClient(sdkClientConfig(aws)), aws.stackPrefix);
  const deployed = outputs.functions.map((f) => parseFunctionKey(f.key)).filter((p) => p !== undefined);
  const both = deployed.some((p) => p.keepAlive !== undefined);
  const isDeployed = (t: Target) => deployed.some((p) => p.target === t);
  const targets = o.deployedOnly ? o.targets.filter(isDeployed) : o.targets;
  for (const t of targets) {
    if (!isDeployed(t)) throw new UsageError(`target ${t} is not deployed (deploy with -c targets=...)`);
  }
  if (targets.length === 0) throw new UsageError('the deployed stack has no lab target');
  if (!both && o.variants.length > 1) {
    throw new UsageError(
      'the deployed API has one keep-alive variant: deploy with -c keepAlive=both, or pass --keep-alive on|off',
    );
  }
  return {
    url: outputs.apiUrl,
    targets,
    basePath: (t, v) => basePath(t, v, both),
    env: {
      LAB_SIGV4_REGION: outputs.region ?? aws.region,
      ...(aws.profile ? { AWS_PROFILE: aws.profile } : {}),
    },
  };
}

/** Persons seeded for reads on cloud workers when the run says none (the histogram article's 1000 objects). */
const REMOTE_SEED_RECORDS = 1000;

/**
 * summary.json's record of a distributed run's workers: platform, count, their region beside the
 * stack's, and what they cost (printed on a line of its own, runs/worker-cost.ts).
 */
async function workersSummary(
  w: Workers,
  stackRegion: string | undefined,
  wallS: number,
  artilleryRuns: number,
  log: (line: string) => void,
): Promise<Record<string, unknown>> {
  const { workerCost, workerCostLine } = await import('../runs/worker-cost');
  const platform = await import('./artillery-platform');
  const cost = workerCost({
    shape:
      w.platform === 'aws:lambda'
        ? {
            platform: 'aws:lambda',
            memoryMb: platform.LAMBDA_WORKER_MEMORY_MB,
            architecture: platform.LAMBDA_WORKER_ARCHITECTURE,
          }
        : {
            platform: 'aws:fargate',
            vcpu: platform.FARGATE_WORKER_VCPU,
            memoryGb: platform.FARGATE_WORKER_MEMORY_GB,
            spot: w.spot === true,
          },
    count: w.count,
    region: w.region,
    wallS,
    invocations: w.count * artilleryRuns,
  });
  log(workerCostLine(cost));
  return {
    platform: w.platform,
    count: w.count,
    region: w.region,
    stackRegion: stackRegion ?? null,
    ...(w.spot ? { spot: true } : {}),
    cost,
  };
}

/** summary.json's record of the network a local run used: the profile and each target's link. */
function networkSummary(
  profile: RunningLab['profile'],
  targets: readonly Target[],
  seed: number,
): Record<string, unknown> {
  return {
    profile: profile.name,
    seed,
    network: Object.fromEntries(
      targets.map((t) => {
        const link = linkOf(profile, t);
        return [
          t,
          {
            rttMs: link.rttMs,
            serviceTime: link.serviceTime && { p50Ms: link.serviceTime.p50Ms, p99Ms: link.serviceTime.p99Ms },
          },
        ];
      }),
    ),
  };
}

/** Options a caller can get wrong, checked before anything starts. */
function validate(o: RunLoadOptions): void {
  const p = o.parallel;
  if (p !== undefined && !(Number.isInteger(p) && p >= 1))
    throw new Error(`parallel must be a whole number >= 1, got ${p}`);
  const gap = o.idleGapS;
  if (gap !== undefined && !(Number.isFinite(gap) && gap >= 0))
    throw new Error(`idleGapS must be a number of seconds >= 0, got ${gap}`);
  const seed = o.seedRecords;
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0))
    throw new Error(`seedRecords must be a whole number >= 0, got ${seed}`);
  const idle = o.local?.idleTimeoutS;
  if (idle !== undefined && !(Number.isInteger(idle) && idle >= 1))
    throw new Error(`local.idleTimeoutS must be a whole number of seconds >= 1, got ${idle}`);
  const reclaim = o.local?.reclaimIdleS;
  if (reclaim !== undefined && !(Number.isFinite(reclaim) && reclaim > 0))
    throw new Error(`local.reclaimIdleS must be a number of seconds > 0, got ${reclaim}`);
}

export async function runLoad(o: RunLoadOptions): Promise<RunLoadResult> {
  validate(o);
  const memories = o.local?.memories ?? [];
  if (o.where === 'aws' && memories.length > 0)
    throw new Error(
      'memory sizes are compared on the local lab; a deployed stack has the memory it was deployed with (-c memorySize=MB)',
    );
  mkdirSync(o.outDir, { recursive: true });
  const functionLogs = new Map<string, string[]>();
  // Batched, not a write per line: the host calls this for every log line of every invocation,
  // and the writes stay off the request path (core/line-file.ts).
  const logFile = new LineFile(join(o.outDir, 'lambda-logs.log'), { flags: 'w' });
  // The engines' own lines (start-up banners, their logs, a refused statement's ERROR) go to a
  // file: the terminal shows the lab's lines only, and names this file when something failed.
  const engineLogPath = join(o.outDir, ENGINE_LOG_FILE);
  const engineLog = o.where === 'local' ? new LineFile(engineLogPath, { flags: 'w' }) : undefined;
  const engineTail: string[] = [];
  // Stopped last-first when the run ends: the host-load sampler, the lab, then the log files
  // (the engines' shutdown lines belong in theirs).
  const cleanup = new Cleanup();
  cleanup.add(() => logFile.close());
  cleanup.add(() => engineLog?.close());
  let lab: RunningLab | undefined;
  let result: Omit<RunLoadResult, 'reportHtml'>;
  try {
    let plan: Plan;
    if (o.where === 'aws') {
      plan = await planAws(o);
      o.log(
        `Target: ${plan.url} (deployed stack${plan.env.LAB_SIGV4_REGION ? ` in ${plan.env.LAB_SIGV4_REGION}` : ''})`,
      );
      const w = o.aws?.workers;
      o.log(
        w
          ? `Load: ${w.count} ${w.platform} worker${w.count === 1 ? '' : 's'} in ${w.region}${w.spot ? ' (Spot)' : ''}, Artillery's distributed runner in your account`
          : 'Load: this machine (Artillery local)',
      );
    } else {
      const { startLab } = await import('../local/lab');
      lab = await startLab({
        port: 0,
        engine: o.local?.engine,
        profile: o.local?.profile,
        rttMs: o.local?.rttMs,
        rttByTarget: o.local?.rttByTarget,
        seed: o.local?.seed,
        dataDir: o.local?.dataDir,
        maxEnvironments: o.local?.maxEnvironments,
        nodePath: o.local?.nodePath,
        idleTimeoutS: o.local?.idleTimeoutS,
        reclaimIdleS: o.local?.reclaimIdleS,
        tlsMaxVersion: o.local?.tlsMaxVersion,
        memoryMb: memories[0],
        cgroups: o.local?.cgroups,
        coldStartModel: o.local?.coldStartModel,
        ...(o.local?.coldStartAs ? { coldStartAs: o.local.coldStartAs } : {}),
        compute: o.local?.compute,
        managedInstances: o.local?.managedInstances,
        context: {
          // Only the functions the phases call (and create, which seeding uses): a shorter synth.
          operations: [...new Set([...(o.seedRecords ? ['create'] : []), ...o.operations])].join(','),
          ...o.local?.context,
          targets: o.targets.join(','),
          keepAlive: o.variants.length > 1 ? 'both' : o.variants[0],
        },
        log: o.log,
        engineLog: (line) => {
          engineLog?.write(line);
          engineTail.push(line);
          if (engineTail.length > ENGINE_TAIL_LINES) engineTail.shift();
        },
        onFunctionLog: (fn, line) => {
          logFile.write(`[${fn}] ${line}`);
          const list = functionLogs.get(fn) ?? [];
          list.push(line);
          functionLogs.set(fn, list);
        },
      }).catch((e: unknown) => {
        // Not after Ctrl-C: the user stopped it, and nothing failed.
        if (!(e instanceof InterruptedError)) {
          o.logError(`The lab did not start. The engines' last lines (all of them: ${engineLogPath}):`);
          for (const line of engineTail) o.logError(`  ${line}`);
        }
        throw e;
      });
      const started = lab;
      cleanup.add(() => started.stop());
      const both = o.variants.length > 1;
      plan = {
        url: lab.url,
        targets: o.targets,
        basePath: (t, v) => basePath(t, v, both),
        env: localSigningEnv(),
      };
      o.log(`Lab API: ${lab.url}`);
      const stories = o.local?.seedStories ?? 0;
      if (stories > 0) {
        const { seedLabStories } = await import('./seed-stories');
        await seedLabStories(lab, o.targets, stories, { seed: o.local?.seed, log: o.log, signal: o.signal });
      }
    }

    const { loadShapeOf, runLoadPhases, writeLoadSummary } = await import('./load-phases');
    const workers = o.where === 'aws' ? o.aws?.workers : undefined;
    // Cloud workers keep the create phase's GovIds: reads pick among records seeded from here.
    const reads = o.operations.some((op) => ['get', 'overwrite', 'update', 'view'].includes(op));
    const seedRecords = o.seedRecords ?? (workers && reads ? REMOTE_SEED_RECORDS : undefined);
    if (workers && reads && o.seedRecords === undefined)
      o.log(
        `Reads on ${workers.platform} workers pick among ${REMOTE_SEED_RECORDS} Persons seeded from this machine first (the create phase's GovIds stay on its workers)`,
      );
    const phasesStarted = performance.now();
    // A CPU share is a ceiling, not a guarantee: on a host busier than its cores, an environment
    // gets less than its memory's share, and the run must say so.
    const hostLoad = sampleRunHostLoad();
    cleanup.add(() => hostLoad.stop());
    // The lines of the function a phase ran: its target, operation and keep-alive variant.
    const linesOf = (target: string, variant: string, phase: string) =>
      [...functionLogs]
        .filter(([fn]) => {
          const p = parseFunctionKey(fn);
          return p?.target === target && p.operation === phase && (p.keepAlive ?? o.variants[0]) === variant;
        })
        .flatMap(([, lines]) => lines);
    const running = lab;
    const { invokeCpuLimit } = await import('../local/host/lambda-memory');
    const phases = await runLoadPhases({
      outDir: o.outDir,
      url: plan.url,
      basePath: (t, v) => plan.basePath(t, v as KeepAliveVariant),
      env: plan.env,
      targets: plan.targets,
      variants: o.variants,
      operations: o.operations,
      durationS: o.durationS,
      ratePerS: o.ratePerS,
      parallel: o.parallel,
      bursts: o.bursts,
      ...(o.targetsAtOnce ? { targetsAtOnce: true } : {}),
      idleGapS: o.idleGapS,
      warmupS: o.warmupS,
      seedRecords,
      pickSeed: o.local?.seed ?? 1,
      ...(workers ? { workers } : {}),
      signal: o.signal,
      initMsP50: (target, variant, phase, memoryMb) => initP50(linesOf(target, variant, phase), memoryMb),
      memories: memories.length > 1 ? memories : undefined,
      setMemory: running ? (mb) => running.setMemory(mb) : undefined,
      phaseExtras: running
        ? async (target, variant, phase, memoryMb, timings) => {
            const fn = [...running.pools.keys()].find((name) => {
              const p = parseFunctionKey(name);
              return (
                p?.target === target && p.operation === phase && (p.keepAlive ?? o.variants[0]) === variant
              );
            });
            const memory = memoryMb ?? (fn ? running.memory()[fn] : undefined);
            const model = running.memoryModel;
            const pool = fn === undefined ? undefined : running.pools.get(fn);
            const mi = pool?.managedInstances;
            const connections = await running.targets
              .get(target as Target)
              ?.model.connections()
              .catch((e: unknown) => {
                o.logError(
                  `  ${target}: the network model did not count its connections: ${e instanceof Error ? e.message : String(e)}`,
                );
                return undefined;
              });
            return {
              ...(memory === undefined ? {} : { memoryMb: memory }),
              cpu: {
                mechanism: model.mechanism,
                vcpus:
                  model.modeled && memory !== undefined
                    ? invokeCpuLimit(memory, model.hostCores).vcpus
                    : null,
              },
              functionMs: await warmDuration(linesOf(target, variant, phase), memory),
              cost: await phaseCost(
                linesOf(target, variant, phase),
                memory,
                timings,
                o.prices,
                {
                  concurrency: Number(o.local?.context?.provisionedConcurrency ?? 0) || 0,
                  wallS: o.durationS,
                },
                mi && pool
                  ? {
                      instanceType: instanceTypeOf(mi),
                      instances: instancesFor(pool.snapshot().environments, mi),
                      wallS: o.durationS,
                    }
                  : undefined,
                { target, context: o.local?.context ?? {} },
              ),
              ...(connections
                ? {
                    dbConnections: {
                      peak: connections.peakActive,
                      peakAll: connections.peakOpen,
                      used: connections.active,
                      opened: connections.opened,
                    },
                  }
                : {}),
            };
          }
        : undefined,
      // Each phase counts the connections its own requests hold at the database.
      phaseStart: running
        ? async (target) => {
            await running.targets
              .get(target as Target)
              ?.model.connections({ mark: true })
              .catch((e: unknown) =>
                o.logError(
                  `  ${target}: the network model did not mark its connections: ${e instanceof Error ? e.message : String(e)}`,
                ),
              );
          }
        : undefined,
      runArtillery: (await import('./artillery-runner')).runArtillery,
      log: o.log,
      logError: o.logError,
    });
    const network = lab ? networkSummary(lab.profile, o.targets, o.local?.seed ?? 1) : undefined;
    const workersBlock = workers
      ? await workersSummary(
          workers,
          plan.env.LAB_SIGV4_REGION,
          (performance.now() - phasesStarted) / 1000,
          phases.rows.length + phases.failed.length,
          o.log,
        )
      : undefined;
    const { networkLine } = await import('../report/report-sections');
    result = {
      rows: phases.rows,
      failed: phases.failed,
      url: plan.url,
      interrupted: phases.interrupted,
      ...(network ? { network: networkLine(network) ?? undefined } : {}),
      ...(engineLog ? { engineLog: engineLogPath } : {}),
    };
    const host = hostLoad.stop();
    if (lab && host.busy) o.log(host.note);
    if (!phases.interrupted) {
      // A failed phase is recorded beside the others: the run keeps its summary and report.
      writeLoadSummary(
        o.outDir,
        {
          target: o.where,
          url: plan.url,
          durationS: o.durationS,
          ...loadShapeOf(o),
          idleGapS: o.idleGapS ?? 0,
          ...(o.bursts ? { bursts: o.bursts } : {}),
          ...(seedRecords ? { seedRecords } : {}),
          ...(workersBlock ? { workers: workersBlock } : {}),
          ...concurrencyBlock(o, phases.rows),
          // The file every row's cost block was priced with (the report names it and its date).
          prices: o.prices ?? (await import('../core/price-file')).DEFAULT_PRICE_FILE,
          ...(o.where === 'local'
            ? {
                // The default: the first engine choice a target offers (--engine).
                engine: o.local?.engine ?? engineChoices(TARGETS)[0]?.kind,
                ...network,
                maxEnvironments: o.local?.maxEnvironments,
                idleTimeoutS: o.local?.idleTimeoutS ?? DEFAULT_IDLE_TIMEOUT_S,
                ...(o.local?.reclaimIdleS === undefined ? {} : { reclaimIdleS: o.local.reclaimIdleS }),
                ...(o.local?.tlsMaxVersion ? { tlsMaxVersion: o.local.tlsMaxVersion } : {}),
                prewarmConnection: o.local?.context?.prewarmConnection === 'true',
                ...memoryBlock(lab as RunningLab, memories),
                ...coldStartBlock((lab as RunningLab).coldStart),
                ...managedInstancesBlock(lab as RunningLab),
                hostLoad: host.summary,
              }
            : {}),
        },
        phases.rows,
        phases.failed,
      );
    }
  } finally {
    await cleanup.run();
  }
  if (result.interrupted) return result;
  // After the log stream is closed: the report reads the whole lambda-logs.log.
  try {
    const { writeReport } = await import('../report/write-report');
    const { files } = await writeReport({ inDir: o.outDir, outDir: o.outDir });
    return { ...result, reportHtml: files.html };
  } catch (e) {
    // The run's results stand; a report can be rebuilt with npm run report -- --in <dir>.
    o.logError(`The report could not be written: ${e instanceof Error ? e.message : String(e)}`);
    return result;
  }
}

/**
 * What concurrency the run reached: the most requests in flight at once over its phases
 * (client side: a request queued in the host counts) and, when the local lab's environment
 * cap was below the workers asked for, a note that the lab capped it.
 */
function concurrencyBlock(o: RunLoadOptions, rows: readonly LabRow[]): Record<string, unknown> {
  const reached = rows.flatMap((r) => (r.maxInFlight === undefined ? [] : [r.maxInFlight]));
  const cap = o.local?.maxEnvironments ?? DEFAULT_MAX_ENVIRONMENTS;
  const capped = o.where === 'local' && o.parallel !== undefined && o.parallel > cap;
  return {
    maxInFlight: reached.length > 0 ? Math.max(...reached) : null,
    ...(capped
      ? {
          concurrencyNote: `--max-envs ${cap} capped the lab at ${cap} execution environments for ${o.parallel} workers: the rest waited in the host's queue, where Lambda would have started more environments`,
        }
      : {}),
  };
}

/**
 * summary.json's account of Lambda Managed Instances, when the functions ran on them
 * (docs/managed-instances.md#locally): each function's settings, invocations throttled, and the
 * most one environment ran at once. Nothing on standard Lambda.
 */
function managedInstancesBlock(lab: RunningLab): Record<string, unknown> {
  const functions = [...lab.pools].flatMap(([name, pool]) => {
    const mi = pool.managedInstances;
    if (!mi) return [];
    const { environments, started, throttled, maxInFlight } = pool.snapshot();
    return [[name, { ...mi, environments, started, throttled, maxInFlight }] as const];
  });
  return functions.length === 0 ? {} : { managedInstances: Object.fromEntries(functions) };
}

/**
 * summary.json's account of the functions: their bundles' sizes, and of memory: what was modeled and how (the one line the lab printed at
 * start, the mechanism, the figures), and each function's memory settings in the run.
 */
function memoryBlock(lab: RunningLab, memories: readonly number[]): Record<string, unknown> {
  const m = lab.memoryModel;
  const now = lab.memory();
  return {
    // What each function deploys: the zip's size (what the QLDB article's 10.18 -> 1.91 MB measured).
    bundles: measureBundles(lab.assembly.functions).map(({ name, minifiedBytes, zippedBytes }) => ({
      name,
      minifiedBytes,
      zippedBytes,
    })),
    memoryModel: memoryModelLine(m),
    memory: {
      modeled: m.modeled,
      mechanism: m.mechanism,
      ...(m.reason ? { reason: m.reason } : {}),
      hostCores: m.hostCores,
      mbPerVcpu: MB_PER_VCPU,
      cfsPeriodUs: CFS_PERIOD_US,
      initBurstMs: INIT_BURST_MS,
    },
    functions: Object.fromEntries(
      Object.keys(now).map((fn) => [
        fn,
        {
          memoryMb: memories.length > 0 ? [...memories] : [now[fn]],
          cpuMechanism: m.mechanism,
        },
      ]),
    ),
  };
}

/** The host's load through the run, and a note when it had more work than cores. */
function sampleRunHostLoad(): {
  stop(): { readonly busy: boolean; readonly note: string; readonly summary: HostLoadSummary };
} {
  const sampler = sampleHostLoad();
  return {
    stop() {
      const summary = sampler.stop();
      const { cores, loadAvg1m } = summary;
      return {
        busy: loadAvg1m.mean > cores,
        note: `Host busy: load average ${loadAvg1m.mean} (max ${loadAvg1m.max}) on ${cores} cores during the run. An environment gets at most its memory's CPU share, and less when the host has none to give: large memory sizes lose most, so ratios between sizes read low.`,
        summary,
      };
    },
  };
}
