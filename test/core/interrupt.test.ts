/**
 * The interrupt handler every lab CLI installs (core/interrupt.ts), on a miniature CLI
 * (test/support/interrupt-fixture.ts) that starts a child as the lab does and registers a
 * stopper: the exit code per signal, the echo of one Ctrl-C ignored, and a second Ctrl-C that
 * exits at once and still ends the child's process group and removes the run directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { processInfo, stillRuns } from '../support/process-tree';

const FIXTURE = join(PROJECT_ROOT, 'test/support/interrupt-fixture.ts');
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

interface Ready {
  readonly runDir: string;
  readonly childPid: number;
  readonly tempDir: string;
}

interface Started {
  readonly proc: ChildProcess;
  readonly ready: Ready;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly stderr: () => string;
}

async function startFixture(mode: 'graceful' | 'hang', marker?: string): Promise<Started> {
  const root = mkdtempSync(join(tmpdir(), 'lab-interrupt-unit-'));
  roots.push(root);
  const proc = spawn(process.execPath, ['--import', 'tsx', FIXTURE, mode, ...(marker ? [marker] : [])], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, TMPDIR: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stderr?.on('data', (d) => {
    stderr += d;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = await new Promise<Ready>((resolve, reject) => {
    proc.stdout?.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Ready);
    });
    void exit.then((e) => reject(new Error(`fixture exited early ${JSON.stringify(e)}: ${stderr}`)));
  });
  return { proc, ready, exit, stderr: () => stderr };
}

/** The fixture's child, by the start time it has now (the tests ask while it is known to run). */
const alive = (pid: number) => {
  const p = processInfo(pid);
  return p !== undefined && stillRuns(p);
};

describe('the interrupt handler of the lab CLIs', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s: runs the stopper to its end, then exits %i with the child and the run directory gone',
    async (sig, code) => {
      const root = mkdtempSync(join(tmpdir(), 'lab-interrupt-marker-'));
      roots.push(root);
      const marker = join(root, 'stopped');
      const f = await startFixture('graceful', marker);
      expect(existsSync(f.ready.tempDir)).toBe(true);
      f.proc.kill(sig);
      const e = await f.exit;
      expect(e.code, f.stderr()).toBe(code);
      expect(readFileSync(marker, 'utf8')).toBe('stopped');
      expect(alive(f.ready.childPid)).toBe(false);
      expect(existsSync(f.ready.runDir)).toBe(false);
    },
    60_000,
  );

  it('takes a repeat within a second as the same Ctrl-C (the terminal and npm both deliver it)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lab-interrupt-marker-'));
    roots.push(root);
    const marker = join(root, 'stopped');
    const f = await startFixture('graceful', marker);
    f.proc.kill('SIGINT');
    f.proc.kill('SIGINT');
    const e = await f.exit;
    expect(e.code).toBe(130);
    // The stopper finished: the echo did not cut the graceful stop short.
    expect(readFileSync(marker, 'utf8')).toBe('stopped');
    expect(existsSync(f.ready.runDir)).toBe(false);
  }, 60_000);

  it('a second Ctrl-C exits at once with 130, killing the child by process group and removing the run directory', async () => {
    const f = await startFixture('hang');
    f.proc.kill('SIGINT');
    // The stopper hangs: without a second signal the process stays.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(f.proc.exitCode).toBeNull();
    expect(alive(f.ready.childPid)).toBe(true);
    f.proc.kill('SIGINT');
    const e = await f.exit;
    expect(e.code).toBe(130);
    expect(f.stderr()).toContain('SIGINT again');
    // The child ignores SIGTERM: only the SIGKILL to its group ended it.
    await expect.poll(() => alive(f.ready.childPid), { timeout: 5_000 }).toBe(false);
    expect(existsSync(f.ready.runDir)).toBe(false);
    expect(readdirSync(join(f.ready.runDir, '..')).filter((n) => n.startsWith('lab-run-'))).toEqual([]);
  }, 60_000);
});
