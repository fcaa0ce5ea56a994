/**
 * A child process we started and own: its output as lines (kept as a short tail for error
 * messages), a promise of its exit, and an idempotent stop() that signals only that child
 * (SIGKILL: its process group, which holds what it started, e.g. PostgreSQL's backends).
 *
 * Each child leads its own process group (detached), so a Ctrl-C in the terminal reaches the
 * CLI alone and the lab stops its engines in order; the child is recorded in the lab's run
 * directory (local/run-dir.ts) so a later start can end it if this process is SIGKILLed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { recordChild } from '../run-dir';

export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ManagedChild {
  readonly pid: number;
  /** Resolves once the process has exited and its output is drained. */
  readonly exited: Promise<ChildExit>;
  hasExited(): boolean;
  /** The last lines of stdout and stderr, oldest first. */
  recentOutput(): string;
  onStdoutLine(listener: (line: string) => void): void;
  /** Writes one line to the child's stdin; false when the child has exited. */
  send(line: string): boolean;
  /** SIGTERM, SIGKILL after graceMs, then wait for the exit. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnChildOptions {
  /** Prefix for log lines and error messages. */
  readonly name: string;
  readonly log?: (line: string) => void;
  readonly cwd?: string;
}

const TAIL_LINES = 40;
const DEFAULT_GRACE_MS = 5_000;

// Children still running when this process exits (a crashed test run, process.exit in a script)
// would otherwise be orphaned and hold their ports; 'exit' handlers must be synchronous, so SIGKILL.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function killRunningOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) killGroup(child);
  });
}

/** SIGKILLs the child's process group; only while Node has not reaped it, so never a reused PID. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export async function spawnChild(
  command: string,
  args: readonly string[],
  opts: SpawnChildOptions,
): Promise<ManagedChild> {
  // stdin stays a pipe we hold open: a child can watch for its end to notice we are gone, and
  // one that takes requests reads them there (send).
  const child = spawn(command, args, { cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  // A child that exits while we write would raise EPIPE here; its exit is reported by 'close'.
  child.stdin.on('error', () => {});
  const tail: string[] = [];
  const stdoutListeners: ((line: string) => void)[] = [];
  const record = (line: string): void => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    opts.log?.(`[${opts.name}] ${line}`);
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    record(line);
    for (const listener of stdoutListeners) listener(line);
  });
  createInterface({ input: child.stderr }).on('line', record);

  let done = false;
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('close', (code, signal) => {
      done = true;
      running.delete(child);
      resolve({ code, signal });
    });
  });

  try {
    await once(child, 'spawn');
  } catch (err) {
    throw new Error(`${opts.name}: cannot run '${command}': ${(err as Error).message}`);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${opts.name}: '${command}' started without a pid`);
  running.add(child);
  killRunningOnExit();
  recordChild(pid, opts.name, true);

  let stopping: Promise<void> | undefined;
  const stop = (graceMs = DEFAULT_GRACE_MS): Promise<void> => {
    stopping ??= (async () => {
      if (done) return;
      // child.kill signals child.pid only, and never after Node has reaped it (no PID-reuse risk).
      child.kill('SIGTERM');
      if (!(await settlesWithin(exited, graceMs))) {
        opts.log?.(`[${opts.name}] did not exit ${graceMs} ms after SIGTERM: SIGKILL`);
        killGroup(child);
      }
      await exited;
    })();
    return stopping;
  };

  return {
    pid,
    exited,
    hasExited: () => done,
    recentOutput: () => tail.join('\n'),
    onStdoutLine: (listener) => {
      stdoutListeners.push(listener);
    },
    send: (line) => {
      if (done || !child.stdin.writable) return false;
      child.stdin.write(`${line}\n`);
      return true;
    },
    stop,
  };
}

/** True if the promise settles within ms; the timer never keeps the process alive. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function describeExit(exit: ChildExit): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

/** The tail of a child's output, indented under an error message, or nothing. */
export function outputSection(child: ManagedChild): string {
  const out = child.recentOutput();
  return out ? `\n--- last output ---\n${out}` : '';
}
