/**
 * One execution environment = one child process running runtime-worker.mjs over a
 * function bundle, on Lambda's Node (local/runtime), not the Node that runs the host: a
 * bundle that needs Node 24 fails here as it would fail in Lambda, and init figures are
 * Node 24's. It runs one invocation at a time, or on Lambda Managed Instances up to its maximum
 * concurrency at once in the same process; a crash or timeout ends it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AssemblyFunction } from '../assembly/cloud-assembly';
import { recordChild } from '../run-dir';
import { type NodeRuntime, resolveLambdaNode } from '../runtime/lambda-node';
import { type CgroupTree, type CpuThrottling, type EnvironmentCgroup, joinCgroupScript } from './cgroups';
import { type ColdStartModel, modeledRemainderMs } from './cold-start-model';
import { initErrorType, initReportLine, initStartLine } from './lambda-log';
import {
  type CpuLimit,
  cpuLimit,
  heapFlags,
  INIT_BURST_MS,
  initCpuLimit,
  invokeCpuLimit,
  memoryLimitBytes,
} from './lambda-memory';

/** The environment's own process: one Lambda runtime, run on Lambda's Node. */
export const RUNTIME_WORKER = join(import.meta.dirname, 'runtime-worker.mjs');
/** A Managed Instances environment with several runtime workers: threads of one process. */
export const RUNTIME_DISPATCHER = join(import.meta.dirname, 'runtime-dispatcher.mjs');

export type InitType = 'on-demand' | 'provisioned-concurrency';

export interface WorkerError {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly stack?: string[];
}

/**
 * How an invocation ended. A result's or error's maxMemoryUsedMb is the process's own peak RSS;
 * REPORT's Max Memory Used is peakMb() of it (the cgroup's peak when larger).
 */
export type InvokeOutcome =
  | { kind: 'result'; durationMs: number; maxMemoryUsedMb: number; response: unknown }
  | { kind: 'error'; durationMs: number; maxMemoryUsedMb: number; error: WorkerError }
  | { kind: 'timeout'; durationMs: number }
  | {
      kind: 'crash';
      durationMs: number;
      exitCode: number | null;
      signal: string | null;
      /** The kernel ended it at its memory ceiling (Lambda's Runtime.OutOfMemory). */
      outOfMemory: boolean;
      maxMemoryUsedMb?: number;
    };

/** Bytes each output stream has carried since the process started (the worker's count). */
interface StreamBytes {
  stdout: number;
  stderr: number;
}

type WorkerMessage =
  | { type: 'ready'; initMs: number; runtimeStartMs: number }
  | { type: 'init-error'; initMs: number; error: WorkerError }
  | {
      type: 'result';
      requestId: string;
      durationMs: number;
      maxMemoryUsedMb: number;
      response: unknown;
      output: StreamBytes;
    }
  | {
      type: 'error';
      requestId: string;
      durationMs: number;
      maxMemoryUsedMb: number;
      error: WorkerError;
      output: StreamBytes;
    };

export class InitError extends Error {
  /** Lambda's name for the failure, as INIT_REPORT's Error Type gives it. */
  readonly lambdaErrorType: string;
  constructor(
    readonly functionName: string,
    readonly error: WorkerError,
    /** Time from process start to the failure. */
    readonly initMs = 0,
  ) {
    super(`${functionName} failed to initialize: ${error.errorType}: ${error.errorMessage}`);
    this.name = 'InitError';
    this.lambdaErrorType = initErrorType(error.errorType);
  }
}

let lambdaNode: NodeRuntime | undefined;
/** resolveLambdaNode() once per process: the environments of every pool share it. */
export function defaultLambdaNode(): NodeRuntime {
  lambdaNode ??= resolveLambdaNode();
  return lambdaNode;
}

/** Finds `index.mjs|js|cjs` and the export for a handler string like `index.handler`. */
/**
 * A new environment's log stream name, as Lambda names it (`2026/11/25/[$LATEST]` and 32 hex
 * digits): Lambda gives each execution environment a stream of its own and sets
 * AWS_LAMBDA_LOG_STREAM_NAME to it, so the handlers name their environment from it.
 */
export function logStreamName(version: string, now = new Date()): string {
  const day = now.toISOString().slice(0, 10).replaceAll('-', '/');
  return `${day}/[${version}]${randomBytes(16).toString('hex')}`;
}

export function resolveHandler(fn: AssemblyFunction): { file: string; exportName: string } {
  const dot = fn.handler.lastIndexOf('.');
  const base = fn.handler.slice(0, dot);
  const exportName = fn.handler.slice(dot + 1);
  for (const ext of ['.mjs', '.js', '.cjs']) {
    const file = join(fn.assetDir, base + ext);
    if (existsSync(file)) return { file, exportName };
  }
  throw new Error(`${fn.name}: no ${base}.mjs/.js/.cjs in ${fn.assetDir} (is cdk.out complete?)`);
}

export interface EnvironmentOptions {
  readonly fn: AssemblyFunction;
  readonly env: Record<string, string>;
  readonly initType: InitType;
  /** Each line the function prints, already in Lambda's console format. */
  readonly onLog: (line: string) => void;
  /** Called once when the process ends, for whatever reason. */
  readonly onExit: (env: ExecutionEnvironment) => void;
  /** Aborting ends a start still under way: the process is killed and start rejects once it is gone. */
  readonly signal?: AbortSignal;
  /**
   * The Node that runs the environment; its warning, if any, is the caller's to log once.
   * @default defaultLambdaNode(): the pinned Node 24, else this machine's Node
   */
  readonly node?: NodeRuntime;
  /**
   * The memory setting the environment runs with: Lambda's heap flags, the context's
   * memoryLimitInMB and, with cgroups, its CPU share and memory ceiling.
   * @default fn.memorySize
   */
  readonly memoryMb?: number;
  /**
   * The lab's cgroups: the environment runs in a cgroup of its own, made here and removed when
   * it ends. Without it the environment runs at full host speed, its memory unbounded.
   */
  readonly cgroups?: {
    readonly tree: CgroupTree;
    readonly hostCores: number;
    /**
     * Freeze the environment between invocations, as Lambda freezes a sandbox after its
     * response: what a function leaves running (socket teardown, GC, timers) waits for the next
     * invocation and is paid from its CPU share, instead of running free in the gap.
     * @default false
     */
    readonly freeze?: boolean;
  };
  /**
   * Lambda's sandbox and runtime start (cold-start-model.ts): the start waits the published
   * init's remainder over the local runtime start, and Init Duration includes it.
   * @default undefined: not modeled, the local process's own init only
   */
  readonly coldStart?: ColdStartModel;
  /**
   * Lambda Managed Instances: the environment takes up to maxConcurrency invocations at once and
   * runs on `vcpus` cores from its start (no init burst, managed-instances-model.ts).
   * @default undefined: standard Lambda, one invocation at a time, CPU by memory
   */
  readonly managed?: {
    readonly maxConcurrency: number;
    readonly vcpus: number;
    /** Runtime workers (threads): Node's default is one per vCPU. @default 1 */
    readonly workers?: number;
  };
}

/**
 * How long after a response the environment is frozen, ms. The freeze's write keeps a thread busy
 * while the kernel stops every thread of the environment; asked at once (setImmediate), it ran
 * while the response was still being delivered and added ~0.1 ms to the client's side of every
 * request here (HTTP leg p50 0.46 -> 0.35 ms with 1 ms, two runs each on 2 cores under load).
 * The cost: an environment may run this long after its response before it stops.
 */
export const FREEZE_AFTER_MS = 1;

/** How long a failed init's output may trail its exit before INIT_REPORT is written anyway. */
const OUTPUT_DRAIN_MS = 200;
/**
 * How long an invocation's output may trail its result before END and REPORT are written anyway:
 * the bytes are in the pipe by then, so only a host starved of CPU waits, and only a lost byte
 * (which never arrives) waits this long.
 */
const INVOKE_OUTPUT_WAIT_MS = 1000;
/** How long a failed init's process may take to exit on its own before it is killed. */
const INIT_ERROR_GRACE_MS = 500;

/** A start ended by its AbortSignal (the pool is stopping), not by the function. */
export class StartAborted extends Error {
  constructor(functionName: string) {
    super(`${functionName}: start aborted`);
    this.name = 'StartAborted';
  }
}

export class ExecutionEnvironment {
  readonly initType: InitType;
  /** Time from process start to the bundle loaded, as Lambda's Init Duration, the modeled part included. */
  initMs = 0;
  /** The part of initMs the cold-start model added (waited, not run), ms. */
  modeledInitMs = 0;
  /** The local runtime's own start, process start to the bundle's import, ms (part of initMs). */
  runtimeStartMs = 0;
  invocations = 0;
  /** Invocations one environment takes at once: 1 on standard Lambda. */
  readonly maxConcurrency: number;
  /** Invocations under way now. */
  get inFlight(): number {
    return this.pending.size;
  }
  /** No slot free: every invocation it can take is under way. */
  get busy(): boolean {
    return this.pending.size >= this.maxConcurrency;
  }
  private exited = false;
  private frozen = false;
  /** The freeze asked after the last response (FREEZE_AFTER_MS). */
  private freezeTimer?: NodeJS.Timeout;
  private stopping = false;
  // Set the moment a timeout condemns the process, before its exit event: it must never be reused.
  private retired = false;
  private readonly pending = new Map<
    string,
    { started: number; resolve: (o: InvokeOutcome) => void; timer: NodeJS.Timeout }
  >();

  /** Bytes read from the process's stdout and stderr so far. */
  private readonly received: StreamBytes = { stdout: 0, stderr: 0 };
  /** What the last result or error said the streams had carried: read before END and REPORT. */
  private expected?: StreamBytes;
  private streamsClosed = 0;
  private onOutput?: () => void;

  /** Resolves once the process is gone and its cgroup removed. */
  private readonly gone: Promise<void>;
  private markGone = () => {};

  private constructor(
    private readonly child: ChildProcess,
    private readonly opts: EnvironmentOptions,
    readonly memoryMb: number,
    private readonly cgroup: EnvironmentCgroup | undefined,
  ) {
    this.initType = opts.initType;
    this.maxConcurrency = opts.managed?.maxConcurrency ?? 1;
    this.gone = new Promise((r) => (this.markGone = r));
  }

  /**
   * The environment's peak memory so far, MB, for REPORT's Max Memory Used: its cgroup's peak,
   * as Lambda reports the sandbox's, or the process's peak RSS (an outcome's maxMemoryUsedMb) if
   * larger. Locally the Node binary's pages are often charged to whichever cgroup read them
   * first, which a fresh Lambda sandbox never shares. Read by the pool after the response is
   * written (a read of the cgroup's file is no part of the answer), before the environment can
   * take another invocation.
   */
  peakMb(processPeakMb: number): number {
    const bytes = this.cgroup?.peakBytes();
    return Math.max(processPeakMb, bytes === undefined ? 0 : Math.round(bytes / (1024 * 1024)));
  }

  /** Resolves once every freeze and thaw asked of its cgroup so far has landed. */
  freezerSettled(): Promise<void> {
    return this.cgroup?.settled() ?? Promise.resolve();
  }

  /** Its cgroup's CPU throttling so far (cgroups.ts cpuThrottling); undefined without a cgroup. */
  cpuThrottling(): CpuThrottling | undefined {
    return this.cgroup?.cpuThrottling();
  }

  /** Its cgroup's CPU quota and memory ceiling as the kernel holds them; undefined without a cgroup. */
  limits(): { quotaUs: number; periodUs: number; memoryBytes: number } | undefined {
    return this.cgroup?.limits();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Can take another invocation: neither exited nor condemned to exit. */
  get alive(): boolean {
    return !this.exited && !this.retired;
  }

  static start(opts: EnvironmentOptions): Promise<ExecutionEnvironment> {
    const { file, exportName } = resolveHandler(opts.fn);
    const node = opts.node ?? defaultLambdaNode();
    const memoryMb = opts.memoryMb ?? opts.fn.memorySize;
    // Lambda's bootstrap passes these to node itself (they are not in NODE_OPTIONS).
    const nodeArgs = heapFlags(memoryMb, opts.env.NODE_OPTIONS);
    let cgroup: EnvironmentCgroup | undefined;
    let burst: NodeJS.Timeout | undefined;
    const managed = opts.managed;
    // Managed Instances: the chosen vCPUs, init and invocations alike; standard: memory's share.
    const runLimit = (hostCores: number): CpuLimit =>
      managed ? cpuLimit(managed.vcpus, hostCores) : invokeCpuLimit(memoryMb, hostCores);
    const throttle = () => {
      clearTimeout(burst);
      if (cgroup && opts.cgroups) cgroup.setCpu(runLimit(opts.cgroups.hostCores));
    };
    if (opts.cgroups) {
      cgroup = opts.cgroups.tree.create(opts.fn.name);
      try {
        cgroup.setMemory(memoryLimitBytes(memoryMb));
        cgroup.setCpu(
          managed
            ? runLimit(opts.cgroups.hostCores)
            : initCpuLimit(memoryMb, opts.cgroups.hostCores, opts.initType),
        );
      } catch (e) {
        void opts.cgroups.tree.release(cgroup).catch(() => {});
        throw e;
      }
      // On-demand init runs on its burst for at most INIT_BURST_MS; then the share applies.
      if (opts.initType === 'on-demand' && !managed) burst = setTimeout(throttle, INIT_BURST_MS).unref();
    }
    opts.onLog(initStartLine(node.version, opts.env.AWS_REGION ?? 'us-east-1'));
    const spawnedAt = performance.now();
    const argv = [file, exportName, opts.fn.name, String(memoryMb)];
    if (managed) argv.push(String(managed.maxConcurrency));
    const workers = opts.env.AWS_LAMBDA_NODEJS_WORKER_COUNT ?? String(managed?.workers ?? 1);
    const threaded = managed !== undefined && Number(workers) > 1;
    if (threaded) argv.push(workers);
    const child = fork(threaded ? RUNTIME_DISPATCHER : RUNTIME_WORKER, argv, {
      env: {
        ...opts.env,
        AWS_LAMBDA_INITIALIZATION_TYPE: opts.initType,
        AWS_LAMBDA_LOG_STREAM_NAME: logStreamName(opts.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST'),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Its own process group: a terminal's Ctrl-C reaches the CLI alone, which stops the lab in order.
      detached: true,
      ...(cgroup
        ? {
            // A shell that puts itself in the cgroup, then becomes node: every byte and every
            // CPU cycle of the environment, from its first instruction, counts against the limits.
            execPath: '/bin/sh',
            execArgv: ['-c', joinCgroupScript(cgroup.procsFiles), node.path, ...nodeArgs],
          }
        : // The host may run under tsx; the environment must not inherit its loader.
          { execPath: node.path, execArgv: nodeArgs }),
    });
    if (child.pid !== undefined) recordChild(child.pid, `env ${opts.fn.name}`, true);
    const env = new ExecutionEnvironment(child, opts, memoryMb, cgroup);
    // A failed send or kill surfaces as 'error'; the exit that follows ends the invocation.
    child.on('error', () => {});
    const outputDone: Promise<void>[] = [];
    for (const [name, stream] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      if (!stream) continue;
      const lines = createInterface({ input: stream });
      lines.on('line', (l) => opts.onLog(l));
      outputDone.push(new Promise((r) => lines.once('close', () => r())));
      // After readline's listener: a chunk's lines are logged by the time it is counted here.
      stream.on('data', (d: Buffer | string) => {
        env.received[name] += typeof d === 'string' ? Buffer.byteLength(d) : d.length;
        env.onOutput?.();
      });
      stream.once('close', () => {
        env.streamsClosed += 1;
        env.onOutput?.();
      });
    }
    return new Promise((resolve, reject) => {
      let stderrTail = '';
      let failure: InitError | undefined;
      let ready = false;
      let aborted = false;
      let modeledWait: NodeJS.Timeout | undefined;
      const abort = () => {
        aborted = true;
        child.kill('SIGKILL');
      };
      if (opts.signal?.aborted) abort();
      else opts.signal?.addEventListener('abort', abort, { once: true });
      child.stderr?.on('data', (d: Buffer) => {
        stderrTail = (stderrTail + d.toString()).slice(-2000);
      });
      const onInitMessage = (m: WorkerMessage) => {
        // Once aborted, only the exit settles the start: the caller waits for the process to be gone.
        if (aborted) return;
        if (m.type === 'ready') {
          const remainder = modeledRemainderMs(opts.coldStart, m.runtimeStartMs);
          env.modeledInitMs = remainder;
          env.runtimeStartMs = m.runtimeStartMs;
          env.initMs = m.initMs + remainder;
          try {
            throttle();
          } catch {
            // The cgroup is gone only if the process is: its exit reports it.
          }
          child.off('message', onInitMessage);
          child.on('message', (msg: WorkerMessage) => env.onMessage(msg));
          const serve = () => {
            if (aborted || !env.alive) return; // the exit settles the start
            ready = true;
            env.idle();
            opts.signal?.removeEventListener('abort', abort);
            resolve(env);
          };
          // The process is loaded and idle while the start waits: the wait is the sandbox's and
          // runtime's start, which a client of a cold start waits for as Lambda's do.
          if (remainder > 0) modeledWait = setTimeout(serve, remainder);
          else serve();
        } else if (m.type === 'init-error') {
          // Settled at the exit that follows, once the function's last lines are logged. A
          // bundle that left a server or timer running at init would keep it alive: end it.
          failure = new InitError(opts.fn.name, m.error, m.initMs);
          setTimeout(() => child.kill('SIGKILL'), INIT_ERROR_GRACE_MS).unref();
        }
      };
      child.on('message', onInitMessage);
      child.once('exit', (code, signal) => {
        clearTimeout(burst);
        clearTimeout(modeledWait);
        opts.signal?.removeEventListener('abort', abort);
        const outOfMemory = env.onExit(code, signal);
        if (ready) return; // a later exit is the invocation's business, not the start's
        if (aborted) {
          reject(new StartAborted(opts.fn.name));
          return;
        }
        const error =
          failure ??
          new InitError(
            opts.fn.name,
            {
              errorType: outOfMemory ? 'Runtime.OutOfMemory' : 'Runtime.ExitError',
              errorMessage: `exited during init (code ${code}, signal ${signal}) ${stderrTail.trim()}`,
            },
            performance.now() - spawnedAt,
          );
        // Lambda writes INIT_REPORT after what the init printed; the output may trail the exit.
        const drained = new Promise<void>((r) => setTimeout(r, OUTPUT_DRAIN_MS).unref());
        Promise.race([Promise.all(outputDone), drained]).then(() => {
          opts.onLog(initReportLine(error.initMs, 'error', error.lambdaErrorType));
          reject(error);
        });
      });
      // No process at all (e.g. spawn failed): there will be no exit to wait for.
      child.once('error', (e) => {
        if (child.pid === undefined) reject(e);
      });
    });
  }

  /**
   * Frozen until the next invocation, when the lab freezes environments. The freeze runs off the
   * event loop (setFrozen), FREEZE_AFTER_MS after the response; the thaw (invoke) is a synchronous
   * write that lands before the invocation's message is sent, unless a freeze is still in
   * flight: then it follows that freeze, and the environment reads the message once thawed.
   */
  private idle(): void {
    if (
      this.opts.cgroups?.freeze &&
      this.cgroup?.canFreeze &&
      !this.frozen &&
      !this.exited &&
      this.pending.size === 0 &&
      !this.stopping
    ) {
      void this.cgroup.setFrozen(true);
      this.frozen = true;
    }
  }

  /**
   * How long the last invocation's thaw took, ms: the kernel waking the environment's frozen
   * threads, as Lambda thaws a sandbox. Undefined when it was not frozen, or when the thaw
   * queued behind a freeze still in flight.
   */
  lastThawMs: number | undefined;

  invoke(requestId: string, event: unknown, timeoutMs: number): Promise<InvokeOutcome> {
    if (this.busy || this.exited) throw new Error('environment is busy or gone');
    if (this.pending.has(requestId)) throw new Error(`${requestId} is already under way`);
    clearTimeout(this.freezeTimer);
    this.lastThawMs = undefined;
    if (this.frozen && this.cgroup) {
      this.frozen = false;
      this.lastThawMs = this.cgroup.thawForInvoke();
    }
    this.invocations += 1;
    const started = performance.now();
    return new Promise<InvokeOutcome>((resolve) => {
      const timer = setTimeout(() => {
        // Managed Instances time out the invocation alone: the environment and its other
        // invocations go on, and the function's code keeps running (its answer is dropped).
        // https://docs.aws.amazon.com/lambda/latest/dg/lambda-managed-instances-execution-environment.html
        if (this.opts.managed) {
          this.finish(requestId, { kind: 'timeout', durationMs: performance.now() - started });
          return;
        }
        // A timed-out environment is not reused, as in Lambda. Retired before the caller
        // hears of the timeout: the exit event comes later, and until then the pool must
        // not hand this dying process to a waiting request.
        this.retired = true;
        this.child.kill('SIGKILL');
        this.finish(requestId, { kind: 'timeout', durationMs: performance.now() - started });
      }, timeoutMs);
      this.pending.set(requestId, { started, resolve, timer });
      this.child.send(
        // The function's name and memory went to the worker once, at its start.
        { type: 'invoke', requestId, event, deadlineMs: Date.now() + timeoutMs },
        // A process that cannot take it is ended: its exit reports the invocation as a crash.
        (err) => {
          if (err) this.child.kill('SIGKILL');
        },
      );
    });
  }

  /** Ends the process (SIGTERM, then SIGKILL) and waits for it. */
  async stop(): Promise<void> {
    if (this.exited) return this.gone;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    // A frozen process takes no signal until it runs again; a freeze still pending must not follow.
    this.stopping = true;
    clearTimeout(this.freezeTimer);
    this.frozen = false;
    await this.cgroup?.setFrozen(false);
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
    await this.gone;
  }

  private finish(requestId: string, outcome: InvokeOutcome): void {
    const p = this.pending.get(requestId);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(requestId);
    p.resolve(outcome);
  }

  /** Everything the last invocation wrote has been read, or its streams are closed. */
  private outputIn(): boolean {
    const e = this.expected;
    return (
      e === undefined ||
      this.streamsClosed === 2 ||
      (this.received.stdout >= e.stdout && this.received.stderr >= e.stderr)
    );
  }

  /**
   * Resolves when the host has read every line the last invocation wrote, at most
   * INVOKE_OUTPUT_WAIT_MS later; undefined when it already has, as it nearly always has. The worker
   * writes them before its result, but the two travel on separate pipes, and under load the
   * result can be read first: END and REPORT must still follow the lines.
   */
  outputRead(): Promise<void> | undefined {
    if (this.outputIn()) {
      this.expected = undefined;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onOutput = undefined;
        this.expected = undefined;
        resolve();
      };
      const timer = setTimeout(done, INVOKE_OUTPUT_WAIT_MS);
      this.onOutput = () => {
        if (this.outputIn()) done();
      };
    });
  }

  private onMessage(m: WorkerMessage): void {
    if ((m.type === 'result' || m.type === 'error') && this.pending.has(m.requestId)) {
      // The counts only grow: with invocations at once, the largest covers every answer so far.
      const e = this.expected;
      this.expected = e
        ? { stdout: Math.max(e.stdout, m.output.stdout), stderr: Math.max(e.stderr, m.output.stderr) }
        : m.output;
      // Frozen once the response is on its way (the host's write, not the function's), unless
      // the pool has handed it the next request by then. Its lines are in the pipe already.
      if (this.opts.cgroups?.freeze) {
        clearTimeout(this.freezeTimer);
        this.freezeTimer = setTimeout(() => this.idle(), FREEZE_AFTER_MS).unref();
      }
      this.finish(
        m.requestId,
        m.type === 'result'
          ? {
              kind: 'result',
              durationMs: m.durationMs,
              maxMemoryUsedMb: m.maxMemoryUsedMb,
              response: m.response,
            }
          : {
              kind: 'error',
              durationMs: m.durationMs,
              maxMemoryUsedMb: m.maxMemoryUsedMb,
              error: m.error,
            },
      );
    }
  }

  /** Returns whether the kernel's OOM killer ended it. */
  private onExit(code: number | null, signal: NodeJS.Signals | null): boolean {
    if (this.exited) return false;
    this.exited = true;
    clearTimeout(this.freezeTimer);
    // Read before the cgroup goes: its OOM count and peak are the only witnesses.
    const outOfMemory = signal === 'SIGKILL' && (this.cgroup?.oomKills() ?? 0) > 0;
    const peak = this.cgroup?.peakBytes();
    for (const [requestId, p] of [...this.pending])
      this.finish(requestId, {
        kind: 'crash',
        durationMs: performance.now() - p.started,
        exitCode: code,
        signal,
        outOfMemory,
        ...(peak === undefined ? {} : { maxMemoryUsedMb: Math.round(peak / (1024 * 1024)) }),
      });
    const cgroup = this.cgroup;
    if (cgroup && this.opts.cgroups) {
      this.opts.cgroups.tree.release(cgroup).then(this.markGone, this.markGone);
    } else this.markGone();
    this.opts.onExit(this);
    return outOfMemory;
  }
}
