/**
 * Runs one scenario with the project's own artillery (node_modules/.bin/artillery) as a child
 * process, and nothing else. The lab has one scenario per operation, not per target:
 * loadtest/<operation>-person.yml, run for any target in core/lab-functions.ts TARGETS.
 * Parameters travel as artillery flags:
 *   --target <url>                            the API (trailing slashes dropped: artillery
 *                                             concatenates target + '/path')
 *   --variables {"labTarget": "dynamodb",     the scenario's variables: the processor's labels
 *     "labPhase": "create",                   and {{ basePath }}
 *     "basePath": "/dynamodb/..."}
 *   --overrides {"config":{"phases":[...]}}   one phase: duration and arrival rate as numbers; for a
 *                                             closed loop (parallel N) N users arriving in 1 s,
 *                                             each looping until closedLoopS (a variable) is up
 *   <script>                                  the lab scenario, or, when the phase has data from
 *                                             an earlier one (GovIds, a pick seed) or runs in the
 *                                             cloud, its own script naming them as payload files
 *                                             (lab-script.ts): what Artillery ships to workers
 * Settings a worker needs travel as variables; local files (LAB_TIMINGS_FILE, LAB_GOVIDS_FILE)
 * as environment variables, which stay on this machine (see lab-processor.mjs).
 * On a cloud platform the subcommand is run-lambda or run-fargate (artillery-platform.ts).
 *
 * The child gets artillery-preload.cjs through NODE_OPTIONS: it stubs artillery's posthog
 * telemetry client, which otherwise holds every run for seconds on a closed network, and notices
 * the end of a run promptly (see that file for what and why).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTarget, OPERATIONS, type Operation } from '../core/lab-functions';
import { PROJECT_ROOT } from '../core/paths';
import { killGroup } from '../local/engines/managed-child';
import { recordChild } from '../local/run-dir';
import { perWorkerPhases, platformCommand, type Workers } from './artillery-platform';
import { ArtilleryOutputParser, type ArtilleryProgress } from './artillery-progress';
import { type Bursts, burstPauseS } from './bursts';
import { labScript } from './lab-script';

export type { ArtilleryProgress } from './artillery-progress';
export { type Bursts, burstPauseS } from './bursts';

const PRELOAD = fileURLToPath(new URL('./artillery-preload.cjs', import.meta.url));
/** How long a stopped child gets for artillery's own shutdown before SIGKILL. */
const STOP_GRACE_MS = 5_000;
const TAIL_LINES = 100;

/** The lab's scenario for one operation, run against one database target. */
export interface LabScenario {
  /** Picks loadtest/<operation>-person.yml; also the processor's `labPhase` label. */
  readonly operation: Operation;
  /** A target of core/lab-functions.ts TARGETS, e.g. `dynamodb`: the processor's `labTarget` label. */
  readonly labTarget: string;
  readonly scenario?: undefined;
}

/** A scenario file run as is, e.g. one written by hand. */
export interface ScenarioFile {
  /** Path relative to the project root. */
  readonly scenario: string;
  readonly operation?: undefined;
  readonly labTarget?: undefined;
}

export type RunArtilleryOptions = ArtilleryRunOptions & (LabScenario | ScenarioFile);

export interface ArtilleryRunOptions {
  /** API base URL, e.g. http://127.0.0.1:3100/lab or https://x.execute-api.../prod/lab/ */
  readonly target: string;
  /** e.g. /dynamodb/keepalive-on, or /dynamodb when one variant is deployed */
  readonly basePath: string;
  readonly durationS: number;
  /** Open loop: arrivals per second. Ignored when parallel or arrivalCount is set. */
  readonly ratePerS: number;
  /** Open loop of exactly this many arrivals spread over durationS (seeding records). @default ratePerS */
  readonly arrivalCount?: number;
  /**
   * Open loop only: the arrivals come in bursts of activeS, with pauseS of no traffic between
   * them (a sparse site's visits); durationS counts the active seconds. @default one phase
   */
  readonly bursts?: Bursts;
  /**
   * Closed loop: this many virtual users, each sending its next request as soon as the last
   * answered, for durationS. @default open loop at ratePerS
   */
  readonly parallel?: number;
  /** artillery --output; its folder is created and a stale file removed first */
  readonly outJson: string;
  /** LAB_TIMINGS_FILE, LAB_GOVIDS_FILE... added to this process's environment (local workers only) */
  readonly env: Readonly<Record<string, string>>;
  /** More scenario variables (labKeepAlive, labMemoryMb, labRatePerS, labSigv4Region): they reach every worker. */
  readonly variables?: Readonly<Record<string, string | number>>;
  /** A CSV of GovIds, a payload file of the phase's script (the get phase reads the create phase's) */
  readonly payload?: string;
  /** Random picks among the payload's GovIds with this seed, itself a payload file. */
  readonly pickSeed?: number;
  readonly onProgress?: (p: ArtilleryProgress) => void;
  /** Every output line, e.g. to echo artillery's own report to a terminal. */
  readonly onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Artillery's distributed runner in the user's account; absent: this machine. */
  readonly workers?: Workers;
  /** Ends the child (SIGTERM, then SIGKILL after a grace period). */
  readonly signal?: AbortSignal;
  /** @default durationS + 120 s locally, + 900 s on a cloud platform: a hung run ends */
  readonly timeoutMs?: number;
}

export interface RunArtilleryResult {
  /** artillery's exit code; 128 + n when ended by signal n */
  readonly exitCode: number;
  readonly wallMs: number;
  /** why the runner ended the child, when it did */
  readonly stopped?: 'abort' | 'timeout' | 'SIGINT' | 'SIGTERM';
  /** the last output lines, for the message when exitCode is not 0 */
  readonly outputTail: readonly string[];
}

const BASE_PATH = /^(\/[A-Za-z0-9._~-]+)*$/;

/** Resolves the artillery CLI script so it runs under this very Node binary. */
function artilleryCli(): string {
  return realpathSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'artillery'));
}

function normalizeTarget(target: string): string {
  const url = new URL(target);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`target must be http(s): ${target}`);
  return target.replace(/\/+$/, '');
}

function normalizeBasePath(basePath: string): string {
  const p = `/${basePath}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  if (!BASE_PATH.test(p)) throw new Error(`basePath must look like /<target>/keepalive-on, got ${basePath}`);
  return p;
}

function positive(name: string, n: number): number {
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${n}`);
  return n;
}

function childEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  if (PRELOAD.includes('"')) throw new Error(`cannot quote the preload path in NODE_OPTIONS: ${PRELOAD}`);
  const preload = `--require "${PRELOAD}"`;
  const inherited = process.env.NODE_OPTIONS?.trim();
  return {
    ...process.env,
    ...extra,
    NODE_OPTIONS: inherited ? `${inherited} ${preload}` : preload,
    // Belt and braces: if a future artillery bypasses the stub, it at least sends no properties.
    ARTILLERY_DISABLE_TELEMETRY: '1',
    // Plain text keeps the output parseable whatever the parent's terminal is.
    FORCE_COLOR: '0',
  };
}

/** The scenario file for one operation; every target runs it. */
export function labScenarioFile(operation: Operation): string {
  return join('loadtest', `${operation}-person.yml`);
}

interface ResolvedScenario {
  readonly file: string;
  /** Artillery's phase name, shown in its output and in the progress line. */
  readonly phaseName: string;
  /** the lab's labels, when the lab scenario runs */
  readonly labels?: { readonly labTarget: string; readonly labPhase: Operation };
}

function labScenario(operation: string, labTarget: string): ResolvedScenario {
  if (!(OPERATIONS as readonly string[]).includes(operation)) {
    throw new Error(`operation must be one of ${OPERATIONS.join(', ')}, got ${operation}`);
  }
  if (!isTarget(labTarget)) throw new Error(`labTarget must be a lab target, got ${labTarget}`);
  const op = operation as Operation;
  return {
    file: labScenarioFile(op),
    phaseName: `${op}-${labTarget}-person`,
    labels: { labTarget, labPhase: op },
  };
}

/** Which file runs, with which labels: the lab scenario, or a file as given. */
export function resolveScenario(opts: LabScenario | ScenarioFile): ResolvedScenario {
  if (opts.scenario === undefined) return labScenario(opts.operation, opts.labTarget);
  return { file: opts.scenario, phaseName: basename(opts.scenario).replace(/\.ya?ml$/, '') };
}

/**
 * Artillery's one phase. A closed loop is still an Artillery run (its HTTP engine, metrics,
 * output JSON and distributed platforms stay the same): N users arrive within the first second
 * and each loops in the scenario (whileTrue: keepLooping) until closedLoopS has passed.
 */
function phasesOf(opts: RunArtilleryOptions, name: string): Record<string, string | number>[] {
  const duration = positive('durationS', opts.durationS);
  if (opts.arrivalCount !== undefined) {
    if (!Number.isInteger(opts.arrivalCount) || opts.arrivalCount < 1)
      throw new Error(`arrivalCount must be a whole number >= 1, got ${opts.arrivalCount}`);
    return [{ name, duration, arrivalCount: opts.arrivalCount }];
  }
  if (opts.parallel === undefined) {
    const arrivalRate = positive('ratePerS', opts.ratePerS);
    if (opts.bursts === undefined) return [{ name, duration, arrivalRate }];
    // Artillery's pause phase sends nothing for its duration; the last burst may be shorter.
    const activeS = positive('bursts.activeS', opts.bursts.activeS);
    const pauseS = positive('bursts.pauseS', opts.bursts.pauseS);
    const phases: Record<string, string | number>[] = [];
    for (let left = duration, i = 1; left > 0; left -= activeS, i++) {
      if (phases.length > 0) phases.push({ name: `${name}-pause-${i - 1}`, pause: pauseS });
      phases.push({ name: `${name}-burst-${i}`, duration: Math.min(activeS, left), arrivalRate });
    }
    return phases;
  }
  if (!Number.isInteger(opts.parallel) || opts.parallel < 1)
    throw new Error(`parallel must be a whole number >= 1, got ${opts.parallel}`);
  if (opts.bursts !== undefined) throw new Error('bursts are an open loop shape: not with parallel');
  return [{ name, duration: 1, arrivalCount: opts.parallel }];
}

/**
 * The phase's own script when it needs one: data from an earlier phase (payload files) or a
 * cloud platform (which ships only what the script names). Undefined: the scenario file as is.
 */
export function phaseScript(opts: RunArtilleryOptions): ReturnType<typeof labScript> | undefined {
  if (opts.scenario !== undefined) return undefined;
  if (opts.payload === undefined && opts.pickSeed === undefined && opts.workers === undefined)
    return undefined;
  return labScript({
    scenarioFile: join(PROJECT_ROOT, labScenarioFile(opts.operation)),
    root: PROJECT_ROOT,
    outJson: opts.outJson,
    ...(opts.payload === undefined ? {} : { govIds: opts.payload }),
    ...(opts.pickSeed === undefined ? {} : { pickSeed: opts.pickSeed }),
    ...(opts.workers === undefined ? {} : { selfContained: true }),
  });
}

export function artilleryArgs(opts: RunArtilleryOptions): string[] {
  const scenario = resolveScenario(opts);
  if ((opts.payload !== undefined || opts.pickSeed !== undefined) && opts.scenario !== undefined)
    throw new Error('payload and pickSeed go with the lab scenario (operation), not a scenario file');
  const phases = perWorkerPhases(phasesOf(opts, scenario.phaseName), opts.workers?.count ?? 1);
  // Absent in an open loop: the processor reads no closedLoopS as 0.
  const loop =
    opts.parallel === undefined || opts.arrivalCount !== undefined ? {} : { closedLoopS: opts.durationS };
  const script = phaseScript(opts);
  return [
    ...platformCommand(opts.workers),
    '--target',
    normalizeTarget(opts.target),
    '--variables',
    JSON.stringify({
      ...scenario.labels,
      basePath: normalizeBasePath(opts.basePath),
      ...loop,
      ...opts.variables,
    }),
    '--overrides',
    JSON.stringify({ config: { phases } }),
    '--output',
    resolve(opts.outJson),
    script?.path ?? resolve(PROJECT_ROOT, scenario.file),
  ];
}

/** Splits a stream into lines, holding a partial last line until it completes. */
function onLines(stream: NodeJS.ReadableStream, each: (line: string) => void, end: () => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (pending + chunk).split(/\r?\n/);
    pending = parts.pop() ?? '';
    for (const line of parts) each(line);
    end();
  });
  stream.on('end', () => {
    if (pending) each(pending);
    pending = '';
    end();
  });
}

/** Local runs start in seconds; a cloud platform first packages and deploys its workers. */
function defaultTimeoutMs(opts: RunArtilleryOptions): number {
  const marginS = opts.workers === undefined ? 120 : 900;
  return (opts.durationS + burstPauseS(opts.durationS, opts.bursts) + marginS) * 1000;
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
}

export async function runArtillery(opts: RunArtilleryOptions): Promise<RunArtilleryResult> {
  if (opts.signal?.aborted) throw new Error('runArtillery: aborted before start');
  const args = [artilleryCli(), ...artilleryArgs(opts)];
  mkdirSync(dirname(resolve(opts.outJson)), { recursive: true });
  for (const f of phaseScript(opts)?.files ?? []) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.text);
  }
  rmSync(resolve(opts.outJson), { force: true });

  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: childEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, recorded: a terminal's Ctrl-C reaches the CLI, which stops it (abort),
    // and a lab started after this process was SIGKILLed ends it (local/run-dir.ts).
    detached: true,
  });
  if (child.pid !== undefined) recordChild(child.pid, 'artillery', true);

  return new Promise<RunArtilleryResult>((resolvePromise, reject) => {
    const parser = new ArtilleryOutputParser();
    const tail: string[] = [];
    let stopped: RunArtilleryResult['stopped'];
    let callbackError: unknown;
    let killTimer: NodeJS.Timeout | undefined;
    let progressChanged = false;
    let lastProgress = '';

    const alive = (): boolean => child.exitCode === null && child.signalCode === null;

    /** Ends our child by its PID: SIGTERM lets artillery shut down, SIGKILL if it does not. */
    const stop = (why: NonNullable<RunArtilleryResult['stopped']> | 'error'): void => {
      if (why !== 'error') stopped ??= why;
      if (!alive() || killTimer) return;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => {
        if (alive()) killGroup(child);
      }, STOP_GRACE_MS);
      killTimer.unref();
    };

    const guard = (fn: () => void): void => {
      try {
        fn();
      } catch (e) {
        callbackError ??= e;
        stop('error');
      }
    };

    const line = (stream: 'stdout' | 'stderr') => (text: string) => {
      tail.push(text);
      if (tail.length > TAIL_LINES) tail.shift();
      if (opts.onLine) guard(() => opts.onLine?.(text, stream));
      if (stream === 'stdout' && parser.push(text)) progressChanged = true;
    };
    // Progress once per chunk: a period block arrives whole, so one call per block.
    const flushProgress = (): void => {
      if (!progressChanged || !opts.onProgress) return;
      progressChanged = false;
      const snapshot = parser.snapshot();
      const key = `${snapshot.phase}:${snapshot.requests}:${snapshot.errors}`;
      if (key === lastProgress) return;
      lastProgress = key;
      guard(() => opts.onProgress?.(snapshot));
    };
    if (child.stdout) onLines(child.stdout, line('stdout'), flushProgress);
    if (child.stderr) onLines(child.stderr, line('stderr'), () => {});

    let reraise: NodeJS.Signals | undefined;
    const forward = (sig: 'SIGINT' | 'SIGTERM'): void => {
      stop(sig);
      // Listening to a signal cancels Node's default exit; give it back once the child is gone.
      if (process.listenerCount(sig) === 1) reraise = sig;
    };
    const onAbort = (): void => stop('abort');
    const onSigint = (): void => forward('SIGINT');
    const onSigterm = (): void => forward('SIGTERM');
    // The parent dies: take the child along (an 'exit' listener must be synchronous).
    const onParentExit = (): void => {
      if (alive()) killGroup(child);
    };

    const timeout = setTimeout(() => stop('timeout'), opts.timeoutMs ?? defaultTimeoutMs(opts));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
    process.on('exit', onParentExit);

    const cleanup = (): void => {
      clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
      process.off('exit', onParentExit);
    };

    child.once('error', (err) => {
      cleanup();
      reject(new Error(`could not start artillery: ${err.message}`));
    });
    // 'close' (not 'exit') so the last output lines have been read.
    child.once('close', (code, signal) => {
      cleanup();
      // One last report, e.g. the summary of a run too short for a 10 s period block.
      progressChanged = true;
      flushProgress();
      if (reraise) {
        process.kill(process.pid, reraise);
        return;
      }
      if (callbackError !== undefined) {
        reject(callbackError);
        return;
      }
      resolvePromise({
        exitCode: exitCodeOf(code, signal),
        wallMs: performance.now() - started,
        stopped,
        outputTail: tail,
      });
    });
  });
}
