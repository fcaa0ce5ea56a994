/**
 * Lambda's scaling for one function: reuse an idle environment, start a new one when all
 * are busy (up to a cap), pre-initialize provisioned ones, replace what crashes. On Lambda
 * Managed Instances (PoolOptions.managedInstances): several invocations per environment, new
 * environments only from the asynchronous scaler, and a throttle for what none can take.
 */
import { randomUUID } from 'node:crypto';
import type { AssemblyFunction } from '../assembly/cloud-assembly';
import type { NodeRuntime } from '../runtime/lambda-node';
import { type CgroupTree, type CpuThrottling, sumThrottling } from './cgroups';
import type { ColdStartModel } from './cold-start-model';
import {
  defaultLambdaNode,
  ExecutionEnvironment,
  type InvokeOutcome,
  StartAborted,
} from './execution-environment';
import { endLine, initReportLine, reportLine, startLine } from './lambda-log';
import { checkMemoryMb } from './lambda-memory';
import { environmentMemoryMb, type ManagedInstancesSettings, ScalingGate } from './managed-instances-model';

export interface PoolOptions {
  readonly fn: AssemblyFunction;
  /** The function's environment with local endpoints substituted. */
  readonly env: Record<string, string>;
  /** Most environments at once; beyond it invocations wait for a free one (see invoke). */
  readonly maxEnvironments: number;
  /** Every log line of this function (platform lines and the function's own). */
  readonly log: (line: string) => void;
  /**
   * The Node the environments run on. A lab passes one resolveLambdaNode() to every pool and
   * logs its warning once; without it the pool resolves its own and logs the warning once.
   * @default resolveLambdaNode(): the pinned Node 24, else this machine's Node
   */
  readonly node?: NodeRuntime;
  /**
   * What the API invokes, as START's `Version:` and the function's AWS_LAMBDA_FUNCTION_VERSION
   * name it: `$LATEST` for the function itself, the version an alias points at otherwise
   * (see invokedVersion).
   * @default '$LATEST'
   */
  readonly version?: string;
  /**
   * The memory setting the environments run with, in place of the template's (see setMemory).
   * @default fn.memorySize
   */
  readonly memoryMb?: number;
  /**
   * The lab's cgroups (local/host/cgroups.ts): each environment then runs under the CPU share
   * and memory ceiling of its memory setting. Without them it runs at full host speed.
   */
  readonly cgroups?: { readonly tree: CgroupTree; readonly hostCores: number; readonly freeze?: boolean };
  /**
   * End an on-demand environment once it has been idle this long, ms, as Lambda's shutdown phase
   * ends environments it no longer needs (https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html:
   * kept "for some time in anticipation of another function invocation", then terminated; in
   * practice minutes, which a lab run compresses with its idle gaps): the next request meets a
   * cold start. Provisioned environments are kept.
   * @default undefined: never, each environment lives until the pool stops
   */
  readonly reclaimIdleMs?: number;
  /**
   * Lambda's sandbox and runtime start (cold-start-model.ts), paid by every environment's init:
   * on-demand ones on their first request, provisioned ones at start().
   * @default undefined: not modeled
   */
  readonly coldStart?: ColdStartModel;
  /**
   * Run the function on Lambda Managed Instances (managed-instances-model.ts): each environment
   * takes up to maxConcurrency invocations at once on its vCPUs, with memory per vCPU x vCPUs;
   * minEnvironments start with the pool; more come only as the scaler's pace allows (never more
   * than maxEnvironments); an invocation no environment has a slot for is throttled at once.
   * memoryMb, freeze and reclaimIdleMs do not apply.
   * @default undefined: standard Lambda
   */
  readonly managedInstances?: ManagedInstancesSettings;
}

export type Invocation =
  | { ok: true; requestId: string; response: unknown; durationMs: number }
  | {
      ok: false;
      requestId: string;
      reason: 'error' | 'timeout' | 'crash' | 'init' | 'throttled';
      message: string;
    };

export interface PoolStats {
  readonly environments: number;
  readonly busy: number;
  readonly started: number;
  readonly coldStarts: number;
  readonly initMs: number[];
  readonly crashes: number;
  /** Requests that waited for a free environment because the cap was reached. */
  readonly queued: number;
  /** On-demand environments ended after reclaimIdleMs without a request. */
  readonly reclaimed: number;
  /**
   * The thaw of each invocation that met a frozen environment, ms, oldest first (at most the
   * last THAWS_KEPT): what waking a frozen environment costs, which Lambda pays too.
   */
  readonly thawMs: number[];
  /**
   * The CFS quota's throttling, summed over the environments alive now (their cgroups' cpu.stat
   * since each started): periods, periods throttled, ms throttled. Undefined without cgroups.
   */
  readonly cpuThrottling?: CpuThrottling;
  /** Invocations under way now, over every environment. */
  readonly inFlight: number;
  /** Managed Instances: invocations throttled because no environment had a free slot. */
  readonly throttled: number;
  /** The most invocations one environment ran at once. */
  readonly maxInFlight: number;
}

/** How long END and REPORT wait after the API's answer: a timer's turn, so the reader runs first. */
const REPORT_AFTER_MS = 0;

/** Thaw times a pool keeps for snapshot(): enough for a bench's p50, bounded for a long run. */
const THAWS_KEPT = 10_000;

export class FunctionPool {
  private readonly envs = new Set<ExecutionEnvironment>();
  private readonly idle: ExecutionEnvironment[] = [];
  private starting = 0;
  /** Starts under way, so stop() can end them too (their processes exist before they are ready). */
  private readonly spawning = new Set<{ readonly abort: AbortController; readonly settled: Promise<void> }>();
  private readonly waiters: ((env: ExecutionEnvironment | undefined) => void)[] = [];
  /** Each environment's END and REPORT still to be logged, a timer's turn after its answer (invoke). */
  private readonly reports = new Map<ExecutionEnvironment, () => void>();
  private stopped = false;
  private readonly stats = {
    started: 0,
    coldStarts: 0,
    queued: 0,
    initMs: [] as number[],
    crashes: 0,
    reclaimed: 0,
    thawMs: [] as number[],
    throttled: 0,
    maxInFlight: 0,
  };
  /** Managed Instances' scaler pace (undefined on standard Lambda). */
  private readonly gate?: ScalingGate;
  /** The reclaim timer of each idle on-demand environment (reclaimIdleMs). */
  private readonly reclaimTimers = new Map<ExecutionEnvironment, NodeJS.Timeout>();
  /** The Node every environment of this pool runs on. */
  readonly node: NodeRuntime;
  readonly version: string;
  private env: Record<string, string>;
  private memory: number;
  private warned = false;

  constructor(private readonly opts: PoolOptions) {
    this.node = opts.node ?? defaultLambdaNode();
    this.version = opts.version ?? '$LATEST';
    const mi = opts.managedInstances;
    // Managed Instances: memory per vCPU x vCPUs, which may pass standard Lambda's 10,240 MB.
    this.memory = mi
      ? environmentMemoryMb(mi)
      : checkMemoryMb(opts.memoryMb ?? opts.fn.memorySize, `${opts.fn.name} memory`);
    if (mi) this.gate = new ScalingGate();
    if (opts.reclaimIdleMs !== undefined && !(opts.reclaimIdleMs > 0))
      throw new Error(
        `${opts.fn.name}: reclaimIdleMs must be a positive number of ms, got ${opts.reclaimIdleMs}`,
      );
    this.env = {
      ...opts.env,
      AWS_LAMBDA_FUNCTION_VERSION: this.version,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(this.memory),
    };
    // A given Node's warning is the caller's to log (once per lab); a resolved one, once here.
    this.warned = opts.node !== undefined;
  }

  get name(): string {
    return this.opts.fn.name;
  }

  /** The cold-start model its environments start with; undefined when not modeled. */
  get coldStart(): ColdStartModel | undefined {
    return this.opts.coldStart;
  }

  /** Its Managed Instances settings; undefined on standard Lambda. */
  get managedInstances(): ManagedInstancesSettings | undefined {
    return this.opts.managedInstances;
  }

  /** The environment variables each execution environment gets. */
  get environment(): Record<string, string> {
    return this.env;
  }

  /** The memory setting new environments start with, MB. */
  get memoryMb(): number {
    return this.memory;
  }

  /**
   * Changes the function's memory setting, as a configuration update does in Lambda: every
   * environment is replaced. Idle ones end now, busy ones when their invocation ends; the
   * next request starts a fresh environment at the new size (provisioned ones are started
   * again at once). Resolves once the old idle environments are gone and the new provisioned
   * ones are ready. A size outside Lambda's range throws and changes nothing.
   */
  async setMemory(memoryMb: number): Promise<void> {
    if (this.opts.managedInstances)
      throw new Error(`${this.name}: on Managed Instances memory is memory per vCPU x vCPUs, not a setting`);
    checkMemoryMb(memoryMb, `${this.name} memory`);
    if (this.stopped) throw new Error(`${this.name}: the pool is stopped`);
    if (memoryMb === this.memory) return;
    this.memory = memoryMb;
    this.env = { ...this.env, AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb) };
    const old = this.idle.splice(0);
    await Promise.all(old.map((e) => e.stop()));
    await this.start();
  }

  /** Starts the provisioned environments, initialized before the first request. */
  async start(): Promise<void> {
    const mi = this.opts.managedInstances;
    if (mi) {
      // Published versions start their environments before they are ACTIVE.
      const n = Math.min(mi.minEnvironments, this.opts.maxEnvironments);
      const envs = await Promise.all(Array.from({ length: n }, () => this.spawn('on-demand')));
      for (const env of envs) this.opts.log(initReportLine(env.initMs));
      return;
    }
    const n = Math.min(this.opts.fn.provisionedConcurrency, this.opts.maxEnvironments);
    const envs = await Promise.all(Array.from({ length: n }, () => this.spawn('provisioned-concurrency')));
    for (const env of envs) {
      this.opts.log(initReportLine(env.initMs));
      this.idle.push(env);
    }
  }

  snapshot(): PoolStats {
    return {
      environments: this.envs.size,
      busy: [...this.envs].filter((e) => e.busy).length,
      inFlight: [...this.envs].reduce((n, e) => n + e.inFlight, 0),
      ...this.stats,
      initMs: [...this.stats.initMs],
      thawMs: [...this.stats.thawMs],
      cpuThrottling: this.throttling(),
    };
  }

  /** Resolves once every freeze and thaw asked of its environments so far has landed. */
  async freezerSettled(): Promise<void> {
    await Promise.all([...this.envs].map((e) => e.freezerSettled()));
  }

  private throttling(): CpuThrottling | undefined {
    return sumThrottling([...this.envs].flatMap((e) => e.cpuThrottling() ?? []));
  }

  /**
   * Runs one invocation. `respond`, when given, gets the invocation the moment its outcome is
   * known, before the platform's END and REPORT lines are formatted and logged and before the
   * cgroup's peak memory is read for REPORT: the API server writes its response there. The
   * environment is then free at once, and the lines follow a timer's turn later (REPORT_AFTER_MS),
   * so the client reads its answer first: the kernel tends to wake a reader on the core of the
   * process that wrote to it, and this process's bookkeeping would run ahead of it (measured:
   * about 0.1 ms of every request through the API, in-process or out). The lines of an
   * invocation always precede the next START of its environment, and its exit or the pool's
   * stop. This resolves once they are logged. A throw from `respond` rejects the returned
   * promise once the lines are logged and the environment released.
   */
  async invoke(event: unknown, respond?: (inv: Invocation) => void): Promise<Invocation> {
    const requestId = randomUUID();
    if (this.stopped) return this.stopping(requestId);
    if (this.opts.managedInstances) return this.invokeManaged(requestId, event, respond);
    let env = this.takeIdle();
    let initDurationMs: number | undefined;
    if (!env) {
      if (this.envs.size + this.starting >= this.opts.maxEnvironments) {
        // Lambda would start another environment (its limit is 1000s); a laptop cannot, so the
        // request waits for the next free one, up to the function timeout, and only then is throttled.
        env = await this.waitForIdle(this.opts.fn.timeoutSeconds * 1000);
        if (!env) {
          if (this.stopped) return this.stopping(requestId);
          const message = `throttled: no free environment within ${this.opts.fn.timeoutSeconds} s (all ${this.opts.maxEnvironments} environments busy)`;
          this.opts.log(`${new Date().toISOString()}\t${requestId}\t${message}`);
          return { ok: false, requestId, reason: 'throttled', message };
        }
        this.stats.queued += 1;
      } else {
        try {
          env = await this.spawn('on-demand');
        } catch (e) {
          if (e instanceof StartAborted) return this.stopping(requestId);
          const message = e instanceof Error ? e.message : String(e);
          this.opts.log(`${new Date().toISOString()}\t${requestId}\tERROR\t${message}`);
          return { ok: false, requestId, reason: 'init', message };
        }
        this.stats.coldStarts += 1;
        initDurationMs = env.initMs;
      }
    }
    const log = this.opts.log;
    const invoked = env.invoke(requestId, event, this.opts.fn.timeoutSeconds * 1000);
    // Written once the event is on its way, not before: the environment starts meanwhile. Still
    // ahead of every line the invocation writes, which the host reads on a later turn.
    this.writeReport(env);
    log(startLine(requestId, this.version));
    const outcome = await invoked;
    if (env.lastThawMs !== undefined) {
      if (this.stats.thawMs.length >= THAWS_KEPT) this.stats.thawMs.splice(0, THAWS_KEPT / 2);
      this.stats.thawMs.push(env.lastThawMs);
    }
    const result = this.describe(requestId, outcome);
    let thrown: { error: unknown } | undefined;
    if (respond) {
      try {
        respond(result);
      } catch (error) {
        thrown = { error };
      }
    }
    // END and REPORT follow the function's own lines, even when its result was read first.
    const output = env.outputRead();
    if (output) await output;
    const report = () => this.logEndAndReport(requestId, env, outcome, initDurationMs);
    if (!respond || thrown || (outcome.kind !== 'result' && outcome.kind !== 'error')) {
      // Whoever waits on this promise answers after it: nothing to get out of the way of. A
      // timeout or a crash ends its environment: its lines stay beside the runtime's own.
      report();
      this.release(env);
      if (thrown) throw thrown.error;
      return result;
    }
    const logged = new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.writeReport(env), REPORT_AFTER_MS);
      this.reports.set(env, () => {
        clearTimeout(timer);
        report();
        resolve();
      });
    });
    this.release(env);
    await logged;
    return result;
  }

  /** END and REPORT of one invocation. */
  private logEndAndReport(
    requestId: string,
    env: ExecutionEnvironment,
    outcome: InvokeOutcome,
    initDurationMs: number | undefined,
  ): void {
    const log = this.opts.log;
    log(endLine(requestId));
    log(
      reportLine({
        requestId,
        durationMs: outcome.durationMs,
        memorySizeMb: env.memoryMb,
        maxMemoryUsedMb:
          outcome.kind === 'result' || outcome.kind === 'error'
            ? env.peakMb(outcome.maxMemoryUsedMb)
            : (('maxMemoryUsedMb' in outcome ? outcome.maxMemoryUsedMb : undefined) ?? 0),
        initDurationMs,
        status: outcome.kind === 'timeout' ? 'timeout' : outcome.kind === 'crash' ? 'error' : undefined,
        errorType: outcome.kind === 'crash' ? crashErrorType(outcome) : undefined,
      }),
    );
  }

  /**
   * Managed Instances: the least loaded environment with a free slot takes the invocation, so
   * each environment's concurrency stays low while there is room. With none free the invocation is
   * throttled at once, as Lambda's router does, and the scaler is told; it is told too when this
   * invocation fills the last free slot. No invocation waits for an environment to start.
   */
  private async invokeManaged(
    requestId: string,
    event: unknown,
    respond?: (inv: Invocation) => void,
  ): Promise<Invocation> {
    let env: ExecutionEnvironment | undefined;
    let free = 0;
    for (const e of this.envs) {
      if (!e.alive || e.busy) continue;
      free += e.maxConcurrency - e.inFlight;
      if (!env || e.inFlight < env.inFlight) env = e;
    }
    if (!env) {
      this.scaleOut();
      this.stats.throttled += 1;
      const message = `throttled: every environment is at its maximum concurrency (${this.envs.size} x ${this.opts.managedInstances?.maxConcurrency}); Managed Instances scale asynchronously (Lambda answers 429)`;
      this.opts.log(`${new Date().toISOString()}\t${requestId}\t${message}`);
      return { ok: false, requestId, reason: 'throttled', message };
    }
    if (free === 1) this.scaleOut();
    const invoked = env.invoke(requestId, event, this.opts.fn.timeoutSeconds * 1000);
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, env.inFlight);
    this.opts.log(startLine(requestId, this.version));
    const outcome = await invoked;
    const result = this.describe(requestId, outcome);
    let thrown: { error: unknown } | undefined;
    try {
      respond?.(result);
    } catch (error) {
      thrown = { error };
    }
    const output = env.outputRead();
    if (output) await output;
    this.logEndAndReport(requestId, env, outcome, undefined);
    if (thrown) throw thrown.error;
    return result;
  }

  /** Starts one more environment in the background if the scaler's pace and the lab's cap allow. */
  private scaleOut(): void {
    const current = this.envs.size + this.starting;
    if (this.stopped || current >= this.opts.maxEnvironments || !this.gate?.allow(current)) return;
    this.spawn('on-demand').then(
      (env) => this.opts.log(initReportLine(env.initMs)),
      () => {},
    );
  }

  /** Logs the environment's last END and REPORT if they are still waiting (see invoke). */
  private writeReport(env: ExecutionEnvironment): void {
    const write = this.reports.get(env);
    if (!write) return;
    this.reports.delete(env);
    write();
  }

  /** Hands a free environment to the longest-waiting request, or parks it as idle. */
  private release(env: ExecutionEnvironment): void {
    if (!env.alive || env.busy) return;
    // Started before a memory change: it ends, as Lambda retires environments of the old configuration.
    if (env.memoryMb !== this.memory) {
      this.writeReport(env);
      void env.stop();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter(env);
    else {
      this.idle.push(env);
      this.armReclaim(env);
    }
  }

  /** Ends an idle on-demand environment after reclaimIdleMs unless a request takes it first. */
  private armReclaim(env: ExecutionEnvironment): void {
    const ms = this.opts.reclaimIdleMs;
    if (ms === undefined || env.initType !== 'on-demand') return;
    const timer = setTimeout(() => {
      this.reclaimTimers.delete(env);
      const i = this.idle.indexOf(env);
      if (i < 0 || this.stopped) return;
      this.idle.splice(i, 1);
      this.stats.reclaimed += 1;
      void env.stop();
    }, ms);
    timer.unref();
    this.reclaimTimers.set(env, timer);
  }

  private disarmReclaim(env: ExecutionEnvironment): void {
    clearTimeout(this.reclaimTimers.get(env));
    this.reclaimTimers.delete(env);
  }

  private waitForIdle(timeoutMs: number): Promise<ExecutionEnvironment | undefined> {
    return new Promise((resolve) => {
      const waiter = (env: ExecutionEnvironment | undefined) => {
        clearTimeout(timer);
        resolve(env);
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const env of [...this.reports.keys()]) this.writeReport(env);
    for (const w of this.waiters.splice(0)) w(undefined);
    for (const t of this.reclaimTimers.values()) clearTimeout(t);
    this.reclaimTimers.clear();
    this.idle.length = 0;
    // Starts under way first: each settles once its process is gone, or once it is in envs.
    const pending = [...this.spawning];
    for (const s of pending) s.abort.abort();
    await Promise.allSettled(pending.map((s) => s.settled));
    await Promise.all([...this.envs].map((e) => e.stop()));
  }

  private stopping(requestId: string): Invocation {
    const message = 'throttled: host is stopping';
    this.opts.log(`${new Date().toISOString()}\t${requestId}\t${message}`);
    return { ok: false, requestId, reason: 'throttled', message };
  }

  private describe(requestId: string, o: InvokeOutcome): Invocation {
    switch (o.kind) {
      case 'result':
        return { ok: true, requestId, response: o.response, durationMs: o.durationMs };
      case 'error':
        return {
          ok: false,
          requestId,
          reason: 'error',
          message: `${o.error.errorType}: ${o.error.errorMessage}`,
        };
      case 'timeout': {
        const message = `Task timed out after ${this.opts.fn.timeoutSeconds.toFixed(2)} seconds`;
        this.opts.log(`${new Date().toISOString()} ${requestId} ${message}`);
        return { ok: false, requestId, reason: 'timeout', message };
      }
      case 'crash': {
        this.stats.crashes += 1;
        const status = o.signal ? `signal: ${goSignalName(o.signal)}` : `exit status ${o.exitCode}`;
        const message = `RequestId: ${requestId} Error: Runtime exited with error: ${status}`;
        this.opts.log(message);
        this.opts.log(crashErrorType(o));
        return { ok: false, requestId, reason: 'crash', message };
      }
    }
  }

  private takeIdle(): ExecutionEnvironment | undefined {
    // Most recently used first: warm environments keep their connections warm, as in Lambda.
    while (this.idle.length > 0) {
      const env = this.idle.pop();
      if (env) this.disarmReclaim(env);
      if (env?.alive && !env.busy) return env;
    }
    return undefined;
  }

  private onEnvironmentExit(e: ExecutionEnvironment): void {
    this.writeReport(e);
    this.envs.delete(e);
    this.disarmReclaim(e);
    const i = this.idle.indexOf(e);
    if (i >= 0) this.idle.splice(i, 1);
    // Managed Instances keep their minimum running: a crash's environment is replaced.
    const mi = this.opts.managedInstances;
    if (mi) {
      if (
        !this.stopped &&
        this.envs.size + this.starting < Math.min(mi.minEnvironments, this.opts.maxEnvironments)
      )
        this.spawn('on-demand').then(
          (env) => this.opts.log(initReportLine(env.initMs)),
          () => {},
        );
      return;
    }
    // A crash or timeout frees a slot: a waiting request gets a fresh environment.
    if (this.waiters.length > 0 && !this.stopped) {
      this.spawn('on-demand').then(
        (fresh) => {
          this.stats.coldStarts += 1;
          this.release(fresh);
        },
        () => {},
      );
    }
  }

  private async spawn(initType: 'on-demand' | 'provisioned-concurrency'): Promise<ExecutionEnvironment> {
    if (this.stopped) throw new StartAborted(this.opts.fn.name);
    this.starting += 1;
    const abort = new AbortController();
    // Settled when this whole spawn is over, including the stop of an environment that came up too late.
    let settle = () => {};
    const entry = { abort, settled: new Promise<void>((r) => (settle = r)) };
    this.spawning.add(entry);
    if (!this.warned) {
      this.warned = true;
      if (this.node.warning) this.opts.log(this.node.warning);
    }
    try {
      const env = await ExecutionEnvironment.start({
        fn: this.opts.fn,
        env: this.env,
        memoryMb: this.memory,
        // Managed Instances run on EC2 instances, not frozen between invocations.
        cgroups:
          this.opts.cgroups && this.opts.managedInstances
            ? { ...this.opts.cgroups, freeze: false }
            : this.opts.cgroups,
        // Node's Managed Instances runtime: one worker thread per vCPU by default.
        managed: this.opts.managedInstances && {
          ...this.opts.managedInstances,
          workers: this.opts.managedInstances.vcpus,
        },
        node: this.node,
        initType,
        coldStart: this.opts.coldStart,
        onLog: this.opts.log,
        signal: abort.signal,
        onExit: (e) => this.onEnvironmentExit(e),
      });
      if (this.stopped) {
        // Ready just as the pool stopped: stop() may already have passed envs by.
        await env.stop();
        throw new StartAborted(this.opts.fn.name);
      }
      this.envs.add(env);
      this.stats.started += 1;
      this.stats.initMs.push(env.initMs);
      return env;
    } finally {
      this.spawning.delete(entry);
      this.starting -= 1;
      settle();
    }
  }
}

/** Lambda's error type for an environment that died mid-invocation. */
function crashErrorType(o: { readonly outOfMemory: boolean }): string {
  return o.outOfMemory ? 'Runtime.OutOfMemory' : 'Runtime.ExitError';
}

/**
 * Lambda's runtime interface is written in Go and names signals as Go's os/exec does
 * (`signal: killed`), not as Node does (`SIGKILL`).
 */
const GO_SIGNAL_NAMES: Readonly<Record<string, string>> = {
  SIGKILL: 'killed',
  SIGTERM: 'terminated',
  SIGABRT: 'aborted',
  SIGSEGV: 'segmentation fault',
  SIGBUS: 'bus error',
  SIGILL: 'illegal instruction',
  SIGINT: 'interrupt',
  SIGFPE: 'floating point exception',
};
function goSignalName(signal: string): string {
  return GO_SIGNAL_NAMES[signal] ?? signal;
}
