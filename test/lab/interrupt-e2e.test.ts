/**
 * Ctrl-C on the real CLIs, as a terminal sends it: SIGINT to the whole foreground process group
 * of `npm run ...` (npm, its shell, the CLI). Each run gets a temp directory of its own (TMPDIR),
 * so "no folder it made remains" is "that directory is empty again". While the run is mid-phase
 * the test records every process under npm (walking /proc by parent PID: the CLI, its engines,
 * PostgreSQL's backends, the network models, Artillery, the function environments); after the
 * signal, within 10 s, none of them may run and the directory must be empty.
 * Then a SIGKILLed CLI: its engines and folders outlive it, and the next lab's start ends and
 * removes them (by its run directory's records, never by name).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { descendants, type ProcessInfo, stillRuns } from '../support/process-tree';

/** The bound: everything the lab started is gone this soon after the signal. */
const GONE_WITHIN_MS = 10_000;
/** Synth of a new set of flags, engines and the first phase on a loaded 2-core machine. */
const START_TIMEOUT_MS = 300_000;

const dirs: string[] = [];
const runs: Run[] = [];
afterAll(() => {
  for (const r of runs) r.killAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function freshDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  // PostgreSQL runs as the postgres user when the tests run as root: it must reach its folders.
  chmodSync(d, 0o755);
  dirs.push(d);
  return d;
}

/** What the run left in its temp directory: tsx's compile cache (tsx-<uid>) is the loader's, not the lab's. */
function leftIn(dir: string): string[] {
  return readdirSync(dir).filter((n) => !/^tsx-\d+$/.test(n));
}

interface Run {
  readonly npm: ChildProcess;
  readonly output: () => string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every process seen under npm so far, by PID. */
  readonly seen: Map<number, ProcessInfo>;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Records the process tree every 300 ms for ms. */
  watch(ms: number): Promise<void>;
  /** Records the process tree every 300 ms until a process matching pattern is seen, or ms pass. */
  watchFor(pattern: RegExp, ms: number): Promise<void>;
  killAll(): void;
}

function startCli(args: readonly string[], tmp: string): Run {
  const npm = spawn('npm', ['run', '-s', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal's foreground job: the signal goes to the group.
    detached: true,
  });
  let out = '';
  npm.stdout?.on('data', (d) => {
    out += d;
  });
  npm.stderr?.on('data', (d) => {
    out += d;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const seen = new Map<number, ProcessInfo>();
  const record = () => {
    for (const p of descendants(npm.pid as number)) if (!seen.has(p.pid)) seen.set(p.pid, p);
  };
  const run: Run = {
    npm,
    output: () => out,
    exit,
    seen,
    async waitFor(pattern, timeoutMs = START_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(out)) {
        if (npm.exitCode !== null || npm.signalCode !== null)
          throw new Error(`the CLI exited before ${pattern}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${out}`);
        record();
        await new Promise((r) => setTimeout(r, 300));
      }
      record();
    },
    async watch(ms) {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        record();
        await new Promise((r) => setTimeout(r, 300));
      }
      record();
    },
    async watchFor(pattern, ms) {
      const end = Date.now() + ms;
      record();
      while (Date.now() < end && ![...seen.values()].some((p) => pattern.test(p.command))) {
        await new Promise((r) => setTimeout(r, 300));
        record();
      }
    },
    killAll() {
      for (const p of seen.values()) {
        if (!stillRuns(p)) continue;
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    },
  };
  runs.push(run);
  return run;
}

/** The processes of the run that still run. */
const running = (run: Run): ProcessInfo[] => [...run.seen.values()].filter(stillRuns);

/** Polls until nothing of the run runs and its temp directory is empty, or the bound passes. */
async function goneWithin(
  run: Run,
  tmp: string,
  ms: number,
): Promise<{ left: string[]; processes: string[] }> {
  const started = Date.now();
  const deadline = started + ms;
  for (;;) {
    const processes = running(run).map((p) => `${p.pid} ${p.command}`);
    const left = leftIn(tmp);
    if (processes.length === 0 && left.length === 0) {
      // Printed for the reader; the bound above is the assertion.
      console.log(
        `${run.npm.spawnargs.slice(3, 4).join(' ')}: ${run.seen.size} processes and every folder gone ${Date.now() - started} ms after the signal`,
      );
      return { left, processes };
    }
    if (Date.now() > deadline) return { left, processes };
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Ctrl-C in a terminal: SIGINT to every process of the foreground job. */
const ctrlC = (run: Run) => process.kill(-(run.npm.pid as number), 'SIGINT');

/**
 * npm's exit after the CLI exited 130: the shell npm runs the script with re-raises the SIGINT it
 * got, and npm re-raises what ended the shell, so the job ends by SIGINT, which a shell shows as 130.
 */
async function expectInterrupted(run: Run): Promise<void> {
  const exit = await run.exit;
  expect(exit.code === 130 || exit.signal === 'SIGINT', `${JSON.stringify(exit)}\n${run.output()}`).toBe(
    true,
  );
}

/** Ctrl-C, then: within the bound no process of the run and no temp folder, and the job ended by SIGINT. */
async function interruptAndExpectNothingLeft(run: Run, tmp: string): Promise<void> {
  ctrlC(run);
  const gone = await goneWithin(run, tmp, GONE_WITHIN_MS);
  expect(gone, run.output()).toEqual({ left: [], processes: [] });
  await expectInterrupted(run);
}

const has = (run: Run, pattern: RegExp) => [...run.seen.values()].some((p) => pattern.test(p.command));

describe('Ctrl-C on a real run stops everything the lab started', () => {
  it('npm run load, mid-phase: exit 130, within 10 s no process of the run and no temp folder is left', async () => {
    const tmp = freshDir('lab-interrupt-load-');
    const out = freshDir('lab-interrupt-load-out-');
    const run = startCli(
      ['load', '--', '--targets', 'dsql', '--duration', '120', '--rate', '4', '--out', out],
      tmp,
    );
    await run.waitFor(/\[1\/\d+\] /);
    // Artillery's own start comes after the phase's line: on a loaded host the first environment
    // can take seconds more (9 s: 3x the 3 s this used to watch).
    await run.watchFor(/runtime-worker/, 9_000);
    // The run is mid-phase: PostgreSQL (the DSQL cluster in the temp directory), Artillery, environments.
    expect(has(run, /postgres/), run.output()).toBe(true);
    expect(has(run, /artillery/)).toBe(true);
    expect(has(run, /runtime-worker/)).toBe(true);
    expect(leftIn(tmp).length).toBeGreaterThan(0);
    await interruptAndExpectNothingLeft(run, tmp);
  }, 600_000);

  it('npm run experiment (redis-vs-others --quick), mid-phase: exit 130, within 10 s nothing of the run is left', async () => {
    const tmp = freshDir('lab-interrupt-experiment-');
    const out = freshDir('lab-interrupt-experiment-out-');
    const run = startCli(
      [
        'experiment',
        '--',
        'redis-vs-others',
        '--quick',
        '--targets',
        'dsql',
        '--duration',
        '120',
        '--out',
        out,
      ],
      tmp,
    );
    await run.waitFor(/\[1\/\d+\] /);
    await run.watch(3_000);
    expect(has(run, /postgres/), run.output()).toBe(true);
    expect(has(run, /artillery/)).toBe(true);
    expect(leftIn(tmp).length).toBeGreaterThan(0);
    await interruptAndExpectNothingLeft(run, tmp);
  }, 600_000);

  it('npm run local, serving: exit 130, within 10 s nothing of the run is left', async () => {
    const tmp = freshDir('lab-interrupt-local-');
    const env = join(freshDir('lab-interrupt-local-env-'), 'local.env');
    const run = startCli(
      [
        'local',
        '--',
        '--port',
        '0',
        '--targets',
        'redis',
        '--provisioned-concurrency',
        '1',
        '--quiet',
        '--lab-env',
        env,
      ],
      tmp,
    );
    await run.waitFor(/Ctrl-C to stop/);
    await run.watch(1_000);
    expect(has(run, /redis-server/), run.output()).toBe(true);
    expect(has(run, /runtime-worker/)).toBe(true);
    await interruptAndExpectNothingLeft(run, tmp);
  }, 600_000);

  it('npm run bench, mid-section: exit 130, within 10 s nothing of the run is left', async () => {
    const tmp = freshDir('lab-interrupt-bench-');
    const run = startCli(['bench'], tmp);
    await run.waitFor(/1\. keep-alive off\/on/);
    await run.watch(2_000);
    expect(has(run, /dynalite/), run.output()).toBe(true);
    await interruptAndExpectNothingLeft(run, tmp);
  }, 600_000);
});

describe('Ctrl-C on npm run tune -- --target local', () => {
  it('mid-tuning: exit 130, within 10 s nothing of the run is left', async () => {
    const tmp = freshDir('lab-interrupt-tune-');
    const out = freshDir('lab-interrupt-tune-out-');
    const run = startCli(
      [
        'tune',
        '--',
        '--target',
        'local',
        '--function',
        'dsql-get',
        '--power-values',
        '128,256',
        '--num',
        '500',
        '--out',
        out,
      ],
      tmp,
    );
    await run.waitFor(/memory: .*network profile/);
    await run.watch(3_000);
    expect(has(run, /postgres/), run.output()).toBe(true);
    expect(has(run, /runtime-worker/)).toBe(true);
    await interruptAndExpectNothingLeft(run, tmp);
    // Interrupted: no result file.
    expect(readdirSync(out)).toEqual([]);
  }, 600_000);
});

describe('a SIGKILLed lab', () => {
  it("leaves its engines and folders, and the next lab's start ends and removes them", async () => {
    const tmp = freshDir('lab-sigkill-');
    // The lab's progress lines go to the log beside its environment file.
    const labDir = freshDir('lab-sigkill-env-');
    const local = [
      'local',
      '--',
      '--port',
      '0',
      '--targets',
      'dsql',
      '--quiet',
      '--lab-env',
      join(labDir, 'local.env'),
    ];
    const first = startCli(local, tmp);
    await first.waitFor(/Ctrl-C to stop/);
    await first.watch(1_000);
    // The CLI's own node process (not npm's shell, whose command line names the script too).
    const cli = [...first.seen.values()].find((p) =>
      /^\S*node --import tsx (?:--import \S+ )*local\/cli\/local\.ts/.test(p.command),
    );
    expect(cli, first.output()).toBeDefined();
    process.kill((cli as ProcessInfo).pid, 'SIGKILL');
    await first.exit;
    // What nothing could stop: PostgreSQL outlives the CLI, its cluster stays in the temp directory.
    await new Promise((r) => setTimeout(r, 1_000));
    const orphans = running(first).filter((p) => /postgres/.test(p.command));
    expect(orphans.length, first.output()).toBeGreaterThan(0);
    expect(leftIn(tmp)).toEqual([`lab-run-${(cli as ProcessInfo).pid}`]);

    const second = startCli(local, tmp);
    await second.waitFor(/Ctrl-C to stop/);
    expect(readFileSync(join(labDir, 'local.log'), 'utf8')).toMatch(
      /Removed what 1 stopped lab\(s\) left in .*: their folders, and \d+ process group\(s\) still running/,
    );
    expect(running(first).map((p) => `${p.pid} ${p.command}`)).toEqual([]);
    expect(leftIn(tmp)).not.toContain(`lab-run-${(cli as ProcessInfo).pid}`);
    ctrlC(second);
    const gone = await goneWithin(second, tmp, GONE_WITHIN_MS);
    expect(gone, second.output()).toEqual({ left: [], processes: [] });
  }, 900_000);
});
