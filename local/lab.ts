/**
 * The whole lab on one machine: cdk.out/ (synthesized when missing or stale) -> one local
 * engine per database target, each behind its own network model (TLS + round trips) -> one
 * function pool per function -> an API Gateway-like server on 127.0.0.1. `stop()` ends
 * everything it started.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cleanup } from '../core/cleanup';
import { InterruptedError } from '../core/errors';
import { stopOnInterrupt } from '../core/interrupt';
import {
  baselineTarget,
  isTarget,
  TARGETS,
  type Target,
  TLS_MAX_VERSION_ENV,
  type TlsMaxVersion,
  targetLabel,
  targetNotice,
} from '../core/lab-functions';
import { CACHE_DIR } from '../core/paths';
import { targetModulePaths } from '../core/target-modules';
import { type Assembly, type AssemblyFunction, readAssembly } from './assembly/cloud-assembly';
import { ensureSynth } from './assembly/ensure-synth';
import { type LocalResources, localEnvironment } from './assembly/environment';
import { watchEngines } from './engine-watchdog';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './engines/types';
import { type MemoryModel, memoryModelLine, openCgroups } from './host/cgroups';
import {
  type Architecture,
  type ColdStartModel,
  coldStartModel,
  coldStartModelLine,
} from './host/cold-start-model';
import { FunctionPool, type PoolStats } from './host/function-pool';
import { checkMemoryMb } from './host/lambda-memory';
import { invokedVersion } from './host/lambda-version';
import {
  environmentMemoryMb,
  type ManagedInstancesOptions,
  type ManagedInstancesSettings,
  resolveManagedInstances,
} from './host/managed-instances-model';
import {
  DEFAULT_IDLE_TIMEOUT_S,
  DEFAULT_MAX_ENVIRONMENTS,
  DEFAULT_PORT,
  LOCAL_CALLER,
  LOCAL_SESSION_TOKEN,
} from './lab-defaults';
import { labEnvVars } from './lab-env';
import { type NetworkModelProcess, startNetworkModelProcess } from './network/network-model-process';
import { resolveProfile } from './network/profile-options';
import { describeLink, linkOf, type NetworkProfile } from './network/profiles';
import { streamSeed } from './network/service-time';
import { negotiatedVersions, tlsLabels } from './network/tls-versions';
import { reapDeadLabs, tidyRunDir } from './run-dir';
import { type NodeRuntime, resolveLambdaNode } from './runtime/lambda-node';
import { type ApiServer, compileRoute, startApiServer } from './server/api-gateway';
import { type LocalDatabase, localTarget } from './targets';
import { runCustomResources } from './targets/custom-resources';
import { ensureCertificates } from './tls/certificates';

export { memoryModelLine } from './host/cgroups';
export {
  DEFAULT_IDLE_TIMEOUT_S,
  DEFAULT_MAX_ENVIRONMENTS,
  DEFAULT_PORT,
  LOCAL_CALLER,
  localSigningEnv,
} from './lab-defaults';

export interface LabOptions {
  /** @default DEFAULT_PORT; 0 picks a free port */
  readonly port?: number;
  /** `--engine`: one of the engines a target offers (LocalTarget.engineKinds), for that target. @default each one's first */
  readonly engine?: string;
  /**
   * Keep every engine's data here, synced to disk, after the lab stops. Absent: in the run data
   * (memory-backed files where the machine has them, local/run-dir.ts), written but not synced,
   * which a restarted engine finds again, removed at stop.
   */
  readonly dataDir?: string;
  /**
   * Engines keep their data in memory only (PostgreSQL: synchronous commit off), so a restart
   * loses what they acknowledged: only to measure what the run data costs (`npm run bench --
   * --only-persistence`). Not with dataDir. @default false
   */
  readonly inMemory?: boolean;
  /** The network profile (local/network/profiles.ts). @default DEFAULT_PROFILE */
  readonly profile?: string;
  /** Every target's round trip instead of the profile's, ms. */
  readonly rttMs?: number;
  /** Some targets' round trips instead of the profile's (`--rtt dynamodb=0.5`), ms; after rttMs. */
  readonly rttByTarget?: Readonly<Partial<Record<Target, number>>>;
  /** Seeds the service-time draws. @default 1 */
  readonly seed?: number;
  /** Context flags for the synth (targets, keepAlive, provisionedConcurrency, memorySize...). */
  readonly context?: Record<string, string>;
  /** Per function. @default DEFAULT_MAX_ENVIRONMENTS */
  readonly maxEnvironments?: number;
  /** The Node executable of the environments. @default Lambda's major, pinned (local/runtime) */
  readonly nodePath?: string;
  /** Every engine closes connections idle longer than this, s. @default DEFAULT_IDLE_TIMEOUT_S */
  readonly idleTimeoutS?: number;
  /**
   * The newest TLS version every function's database clients offer (LAB_TLS_MAX_VERSION): TLS
   * 1.2 runs an article's conditions (experiments/conditions.ts). @default Node's (1.3)
   */
  readonly tlsMaxVersion?: TlsMaxVersion;
  /**
   * The host ends an on-demand execution environment idle this long, s, as Lambda reclaims idle
   * environments (FunctionPool.reclaimIdleMs). @default never: environments live as long as the lab
   */
  readonly reclaimIdleS?: number;
  /** Cloud assembly folder. @default localOutdir(context) under .cache/cdk.out/ */
  readonly outdir?: string;
  /** The lab's own progress and notices. */
  readonly log?: (line: string) => void;
  /**
   * What the engines, their network models and the custom resources write: a file's, not a
   * terminal's (`npm run load` writes them to its results folder, `npm run local` to its log).
   * @default log
   */
  readonly engineLog?: (line: string) => void;
  /** Every function log line (START/END/REPORT and the function's own), by function. */
  readonly onFunctionLog?: (fn: string, line: string) => void;
  readonly onRequest?: Parameters<typeof startApiServer>[0]['onRequest'];
  /**
   * Every function's memory setting, MB, in place of the template's, with no re-synth: the
   * host applies it (REPORT's Memory Size, heap flags, CPU share, memory ceiling). Change it
   * per function later with RunningLab.setMemory. @default each function's MemorySize
   */
  readonly memoryMb?: number;
  /**
   * Run environments under cgroups (CPU share and memory ceiling by memory). false runs them
   * at full host speed, as where cgroups cannot be used, and says so. @default true
   */
  readonly cgroups?: boolean;
  /**
   * Notice an engine that dies on its own (checked every 250 ms) or stops answering its health
   * request (local/engine-watchdog.ts), say so through `log` (a line starting `warning:`) and
   * start it again on the same port and data. `npm run local` turns it on; fault tests leave it
   * off, as they kill and restart engines themselves. @default false
   */
  readonly restartDeadEngines?: boolean;
  /** With restartDeadEngines: each engine's health request every this many ms. @default 2 000 */
  readonly healthIntervalMs?: number;
  /** With restartDeadEngines: an engine not answering within this, twice in a row, is hung. @default 5 000 */
  readonly healthDeadlineMs?: number;
  /**
   * Freeze each environment between invocations (cgroup freezer), as Lambda freezes a sandbox
   * after its response: work a function leaves behind runs in its next invocation, under its
   * CPU share. @default true where cgroups are used
   */
  readonly freeze?: boolean;
  /**
   * Model Lambda's sandbox and runtime start in every init (local/host/cold-start-model.ts): a
   * cold start waits the published empty-function init's remainder, and Init Duration includes
   * it. false: the local process's own init only. @default true
   */
  readonly coldStartModel?: boolean;
  /**
   * The runtime and architecture whose published init the model follows, in place of each
   * function's own (the template's Runtime and Architectures): an article's runtime, say.
   * @default each function's
   */
  readonly coldStartAs?: { readonly runtime: string; readonly architecture: Architecture };
  /**
   * `managed-instances` runs every function as on Lambda Managed Instances
   * (local/host/managed-instances-model.ts), with `managedInstances`' settings. A function whose
   * template has a capacity provider runs so whatever this says, with the template's settings:
   * what runs locally is what deploys. @default 'standard'
   */
  readonly compute?: 'standard' | 'managed-instances';
  /** Managed Instances settings for functions whose template has none. @default Node's defaults, 1 vCPU */
  readonly managedInstances?: ManagedInstancesOptions;
}

/** One database target as it runs locally. */
export interface RunningTarget {
  readonly database: LocalDatabase;
  readonly model: NetworkModelProcess;
  /** The TLS version each pinned client negotiated with the model at start (TLS 1.2, then 1.3). */
  readonly tlsVersions: readonly string[];
}

export interface RunningLab {
  readonly url: string;
  readonly assembly: Assembly;
  readonly targets: ReadonlyMap<Target, RunningTarget>;
  /**
   * The baseline target's engine and model, for a lab that runs it (reading them in one that
   * does not throws, naming the targets it runs): `targets` has every target's.
   */
  readonly engine: LocalDatabase;
  readonly model: NetworkModelProcess;
  readonly caCertPath: string;
  /** Local names of the baseline target's tables created in its engine (a lab that runs it). */
  readonly tableNames: readonly string[];
  readonly node: NodeRuntime;
  /** The network profile the models run, overrides applied. */
  readonly profile: NetworkProfile;
  readonly pools: ReadonlyMap<string, FunctionPool>;
  /** What of Lambda's memory setting this lab models, and how (cgroups, or why not). */
  readonly memoryModel: MemoryModel;
  /** Each function's cold-start model (local/host/cold-start-model.ts); undefined when turned off. */
  readonly coldStart: readonly ColdStartModel[] | undefined;
  /** Each function's memory setting now, MB. */
  memory(): Record<string, number>;
  /**
   * Sets the memory of one function (by name) or of all (no name), as a configuration update
   * would: its environments are replaced, the next request gets a fresh one at the new size.
   * An unknown function or a size outside 128-10,240 MB throws and changes nothing.
   */
  setMemory(memoryMb: number, functionName?: string): Promise<void>;
  /**
   * A pool of its own for other code run as function `like` runs (its environment variables,
   * Node, memory, cgroups and version), e.g. an unbundled build beside the bundle: one
   * environment at most, no provisioned ones. The caller stops it; an unknown `like` throws.
   */
  poolLike(like: string, fn: AssemblyFunction, log?: (line: string) => void): FunctionPool;
  stats(): Record<string, PoolStats>;
  /**
   * What a program outside the lab needs to reach it: every target's client lines, the region,
   * the local caller, the CA and the API (local/lab-env.ts; `npm run local` writes them to a file).
   */
  clientEnv(): Record<string, string>;
  /** Stops a target's engine (if it still runs) and starts it again on the same port and data. */
  restartEngine(target?: Target): Promise<LocalDatabase>;
  stop(): Promise<void>;
}

/**
 * The targets a context asks for, each once in the order given (the baseline target alone when
 * it names none); an unknown one is an error naming the list. Only these engines start.
 */
export function requestedTargets(context: Record<string, string> = {}): Target[] {
  const requested = (context.targets ?? baselineTarget(TARGETS) ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const unknown = requested.filter((t) => !isTarget(t));
  if (unknown.length > 0 || requested.length === 0) {
    throw new Error(`unknown target ${unknown.join(', ') || '(none)'}; known: ${TARGETS.join(', ')}`);
  }
  return [...new Set(requested.filter(isTarget))];
}

/** The -c flags the local lab synthesizes with: the requested targets, no Power Tuning. */
export function localSynthContext(context: Record<string, string> = {}): Record<string, string> {
  const targets = requestedTargets(context);
  // Both variants by default: the lab's first question is what keep-alive is worth.
  return {
    keepAlive: 'both',
    // What a target's functions need named in the synth (a secret the local stand-in answers for).
    ...Object.assign({}, ...targets.map((t) => localTarget(t).synthContext ?? {})),
    ...context,
    targets: targets.join(','),
    powerTuning: 'false',
  };
}

/**
 * Where the local lab synthesizes for a set of flags: one cloud assembly per set, so runs with
 * different flags (a two-target load beside a one-target test) never overwrite each other's.
 */
export function localOutdir(context: Record<string, string>): string {
  const key = Object.entries(context)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  // Target modules registered through the variable shape the templates too: their own assembly.
  const modules = targetModulePaths();
  const keyed = modules.length === 0 ? key : `${key},modules=${modules.join(',')}`;
  return join(CACHE_DIR, 'cdk.out', createHash('sha256').update(keyed).digest('hex').slice(0, 12));
}

export async function startLab(opts: LabOptions = {}): Promise<RunningLab> {
  const log = opts.log ?? (() => {});
  const engineLog = opts.engineLog ?? log;
  const context = localSynthContext(opts.context);
  const outdir = opts.outdir ?? localOutdir(context);
  const targets = requestedTargets(context);
  const node = resolveLambdaNode(opts.nodePath);
  if (node.warning) log(`warning: ${node.warning}`);
  if (opts.memoryMb !== undefined) checkMemoryMb(opts.memoryMb);
  if (opts.inMemory && (opts.dataDir || opts.restartDeadEngines))
    throw new Error('inMemory engines lose their data: not with dataDir or restartDeadEngines');

  // Dead labs' leftovers first (a SIGKILLed CLI's engines and folders): see run-dir.ts.
  const reaped = reapDeadLabs();
  if (reaped.labs > 0)
    log(
      `Removed what ${reaped.labs} stopped lab(s) left in ${tmpdir()}: their folders, and ${reaped.processes} process group(s) still running`,
    );
  const cleanup = new Cleanup();
  // Run last: the run folder goes once everything that wrote to it has stopped.
  cleanup.add(tidyRunDir);
  // Idempotent: a signal (core/interrupt.ts) and the run unwinding may both call it.
  const stopAll = (): Promise<void> => cleanup.run();
  cleanup.add(stopOnInterrupt(stopAll));
  /** Owns what was just started; if the lab is already stopping (a signal), stops it and gives up. */
  const own = async (stop: () => Promise<void>): Promise<void> => {
    if (!(await cleanup.own(stop))) throw new InterruptedError('the lab was stopped while it started');
  };
  const checkStopping = (): void => {
    if (cleanup.stopping) throw new InterruptedError('the lab was stopped while it started');
  };
  try {
    const cgroups = opts.cgroups === false ? undefined : await openCgroups();
    const memoryModel: MemoryModel = cgroups?.model ?? {
      modeled: false,
      mechanism: 'none',
      reason: 'cgroups turned off (cgroups: false)',
      hostCores: availableParallelism(),
    };
    const tree = cgroups?.tree;
    if (tree) await own(() => tree.remove());
    log(memoryModelLine(memoryModel, cgroups?.removedStale ?? 0));
    await ensureSynth(outdir, context, log);
    checkStopping();
    const assembly = readAssembly(outdir);
    if (assembly.routes.length === 0) throw new Error(`${outdir} has no API routes to serve`);
    if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
    const certs = await ensureCertificates(join(CACHE_DIR, 'tls'));
    const profile = resolveProfile(opts);

    const running = new Map<Target, RunningTarget>();
    // Engines start in parallel (PostgreSQL's initdb alone takes seconds); each one that started
    // is owned, so a failure of another stops it too.
    const started = await Promise.allSettled(
      targets.map(async (target) => {
        const local = localTarget(target);
        const database = await local.start({
          assembly,
          dataDir: opts.dataDir,
          inMemory: opts.inMemory,
          engine: opts.engine && local.engineKinds?.includes(opts.engine) ? opts.engine : undefined,
          idleTimeoutS: opts.idleTimeoutS ?? DEFAULT_IDLE_TIMEOUT_S,
          certs,
          log: engineLog,
        });
        await own(() => database.stop());
        return database;
      }),
    );
    const failedStart = started.find((s) => s.status === 'rejected');
    if (failedStart) throw (failedStart as PromiseRejectedResult).reason;
    for (const [i, target] of targets.entries()) {
      const database = (started[i] as PromiseFulfilledResult<LocalDatabase>).value;
      const link = linkOf(profile, target);
      const model = await startNetworkModelProcess(
        {
          upstreamHost: '127.0.0.1',
          upstreamPort: database.upstreamPort,
          rttMs: link.rttMs,
          serviceTime: link.serviceTime && { p50Ms: link.serviceTime.p50Ms, p99Ms: link.serviceTime.p99Ms },
          seed: streamSeed(opts.seed ?? 1, target),
          tls: certs,
          startTls: database.modelStartTls,
        },
        engineLog,
      );
      await own(() => model.close());
      // One handshake per version a client may pin: the header names what was negotiated.
      const tlsVersions = await negotiatedVersions(model.url, {
        caCertPath: certs.caCertPath,
        startTls: database.modelStartTls,
      });
      running.set(target, { database, model, tlsVersions });
      log(
        `${targetLabel(target)}: ${database.description} (pid ${database.pid}) behind ${model.url}: ${tlsLabels(tlsVersions)} negotiated, profile ${profile.name}: ${describeLink(link)}; new connections pay TCP + TLS set-up`,
      );
      const notice = targetNotice(target);
      if (notice) log(notice);
    }

    // Every function sees every target's endpoints: a function only reads its own.
    const local: LocalResources = {
      nameOf: (stack, id, type) => {
        for (const { database } of running.values()) {
          const name = database.nameOf(stack, id, type);
          if (name !== undefined) return name;
        }
        return undefined;
      },
      extra: {
        AWS_REGION: LOCAL_REGION,
        AWS_DEFAULT_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        AWS_SESSION_TOKEN: LOCAL_SESSION_TOKEN,
        NODE_EXTRA_CA_CERTS: certs.caCertPath,
        ...(opts.tlsMaxVersion ? { [TLS_MAX_VERSION_ENV]: opts.tlsMaxVersion } : {}),
        ...Object.assign({}, ...[...running.values()].map((r) => r.database.functionEnv(r.model))),
      },
    };
    for (const { database, model } of running.values()) {
      await database.prepare?.(model, async (type, env) =>
        runCustomResources(assembly, type, { ...local, extra: { ...local.extra, ...env } }, engineLog),
      );
    }

    const coldStartOf = (fn: AssemblyFunction): ColdStartModel | undefined =>
      opts.coldStartModel === false
        ? undefined
        : opts.coldStartAs
          ? coldStartModel(opts.coldStartAs.runtime, opts.coldStartAs.architecture)
          : coldStartModel(fn.runtime, fn.architecture);
    const coldStart =
      opts.coldStartModel === false
        ? undefined
        : assembly.routes.flatMap((r) => coldStartOf(r.function) ?? []);
    log(coldStartModelLine(coldStart));
    const pools = new Map<string, FunctionPool>();
    const managedOf = (fn: AssemblyFunction): ManagedInstancesSettings | undefined =>
      fn.capacityProvider || opts.compute === 'managed-instances'
        ? resolveManagedInstances(fn.memorySize, fn.capacityProvider, opts.managedInstances)
        : undefined;
    const managedLines = new Set<string>();
    for (const route of assembly.routes) {
      const fn = route.function;
      if (pools.has(fn.name)) continue;
      const managed = managedOf(fn);
      if (managed)
        managedLines.add(
          `Managed Instances (settings from the ${managed.source}): ${managed.maxConcurrency} invocations at once per environment, ${managed.vcpus} vCPU x ${managed.memoryGiBPerVCpu} GiB = ${environmentMemoryMb(managed)} MB, ${managed.minEnvironments} environment(s) at start${tree ? '' : '; CPU and memory not enforced (no cgroups)'}`,
        );
      const pool = new FunctionPool({
        fn,
        env: localEnvironment(fn, assembly.templates, local),
        maxEnvironments: opts.maxEnvironments ?? DEFAULT_MAX_ENVIRONMENTS,
        node,
        version: invokedVersion(assembly.templates, fn),
        memoryMb: opts.memoryMb,
        cgroups: tree ? { tree, hostCores: memoryModel.hostCores, freeze: opts.freeze ?? true } : undefined,
        reclaimIdleMs: opts.reclaimIdleS === undefined ? undefined : opts.reclaimIdleS * 1000,
        coldStart: coldStartOf(fn),
        managedInstances: managed,
        log: (line) => opts.onFunctionLog?.(fn.name, line),
      });
      pools.set(fn.name, pool);
      await own(() => pool.stop());
    }
    for (const line of managedLines) log(line);
    await Promise.all([...pools.values()].map((p) => p.start()));
    checkStopping();

    const routes = assembly.routes.map((r) => compileRoute(r, pools.get(r.function.name) as FunctionPool));
    const server: ApiServer = await startApiServer({
      routes,
      stage: assembly.stage,
      host: '127.0.0.1',
      port: opts.port ?? DEFAULT_PORT,
      // The caller the lab prints, and its functions' own temporary credentials with the session
      // token it gave them (as Lambda's role credentials can invoke an API): nothing else.
      iam: {
        region: LOCAL_CALLER.region,
        principals: [LOCAL_CALLER, { ...LOCAL_CREDENTIALS, sessionToken: LOCAL_SESSION_TOKEN }],
      },
      onRequest: opts.onRequest,
    });
    await own(() => server.close());

    // engine, model and tableNames are the baseline target's (the lab's default target).
    const baseline = baselineTarget(TARGETS) ?? '';
    const first = (): RunningTarget => {
      const r = running.get(baseline);
      if (!r)
        throw new Error(
          `this lab runs no ${targetLabel(baseline)} (targets: ${targets.join(', ')}): use lab.targets`,
        );
      return r;
    };
    // Targets being restarted: the watch below leaves them alone.
    const restarting = new Set<Target>();
    const restartEngine = async (target: Target = baseline) => {
      const r = running.get(target);
      if (!r) throw new Error(`target ${target} is not running`);
      restarting.add(target);
      try {
        await r.database.restart();
      } finally {
        restarting.delete(target);
      }
      return r.database;
    };
    if (opts.restartDeadEngines) {
      const watchdog = watchEngines({
        databases: new Map([...running].map(([t, r]) => [t, r.database])),
        restarting,
        log,
        healthIntervalMs: opts.healthIntervalMs,
        healthDeadlineMs: opts.healthDeadlineMs,
      });
      cleanup.add(async () => {
        watchdog.stop();
        for (const t of running.keys()) restarting.add(t);
      });
    }
    return {
      url: server.url,
      assembly,
      targets: running,
      get engine() {
        return first().database;
      },
      get model() {
        return first().model;
      },
      caCertPath: certs.caCertPath,
      get tableNames() {
        return first().database.tables;
      },
      node,
      profile,
      pools,
      memoryModel,
      coldStart,
      memory: () => Object.fromEntries([...pools].map(([name, p]) => [name, p.memoryMb])),
      setMemory: async (memoryMb, functionName) => {
        checkMemoryMb(memoryMb);
        const chosen = functionName === undefined ? [...pools.values()] : [pools.get(functionName)];
        if (chosen.some((p) => p === undefined))
          throw new Error(`no function ${functionName}; the lab runs ${[...pools.keys()].join(', ')}`);
        await Promise.all(chosen.map((p) => (p as FunctionPool).setMemory(memoryMb)));
      },
      poolLike: (like, fn, fnLog) => {
        const pool = pools.get(like);
        if (!pool) throw new Error(`no function ${like}; the lab runs ${[...pools.keys()].join(', ')}`);
        return new FunctionPool({
          fn: { ...fn, provisionedConcurrency: 0 },
          env: pool.environment,
          maxEnvironments: 1,
          node,
          version: pool.version,
          memoryMb: pool.memoryMb,
          cgroups: tree ? { tree, hostCores: memoryModel.hostCores, freeze: opts.freeze ?? true } : undefined,
          coldStart: pool.coldStart,
          log: fnLog ?? (() => {}),
        });
      },
      restartEngine,
      clientEnv: () =>
        labEnvVars({
          apiUrl: server.url,
          caCertPath: certs.caCertPath,
          services: Object.assign({}, ...[...running.values()].map((r) => r.database.clientEnv(r.model))),
        }),
      stats: () => Object.fromEntries([...pools].map(([name, p]) => [name, p.snapshot()])),
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
