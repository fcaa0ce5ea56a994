/**
 * The lab's run directory (local/run-dir.ts): what a SIGKILLed lab left is found by its own
 * owner.json and children.jsonl, never by a process's name. A dead owner's folder is removed
 * and its recorded children still running are ended by process group; a live owner's folder,
 * a PID that now belongs to another process and a folder still being made are left alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnChild } from '../../local/engines/managed-child';
import {
  dataRoot,
  labDataDir,
  labTempDir,
  processStartTime,
  reapDeadLabs,
  runDir,
  tidyRunDir,
} from '../../local/run-dir';
import { allProcesses, processInfo, stillRuns } from '../support/process-tree';

const root = mkdtempSync(join(tmpdir(), 'lab-run-dir-test-'));
const started: ChildProcess[] = [];
afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** A process in its own group with a child of its own, as an engine with its workers. */
function sleeper(): { leader: number; startTime: string } {
  const c = spawn('sh', ['-c', 'sleep 300 & wait'], { detached: true, stdio: 'ignore' });
  started.push(c);
  const leader = c.pid as number;
  return { leader, startTime: processStartTime(leader) as string };
}

/** A PID that ran and is gone now. */
async function deadPid(): Promise<number> {
  const c = spawn('true');
  await new Promise((r) => c.once('exit', r));
  return c.pid as number;
}

function fakeLab(name: string, owner: object | undefined, children: object[]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  if (owner) writeFileSync(join(dir, 'owner.json'), JSON.stringify(owner));
  writeFileSync(join(dir, 'children.jsonl'), children.map((c) => `${JSON.stringify(c)}\n`).join(''));
  mkdirSync(join(dir, 'lab-dsql-abc123'));
  writeFileSync(join(dir, 'lab-dsql-abc123', 'PG_VERSION'), '15');
  return dir;
}

async function groupMembers(leader: number): Promise<number[]> {
  // The shell's sleep: same process group as the shell.
  for (let i = 0; i < 50; i++) {
    const members = allProcesses().filter((p) => p.pgid === leader && p.pid !== leader && p.state !== 'Z');
    if (members.length > 0) return members.map((p) => p.pid);
    await new Promise((r) => setTimeout(r, 50));
  }
  return [];
}

describe('reapDeadLabs', () => {
  it("removes a dead lab's folder and ends its recorded children by process group", async () => {
    const s = sleeper();
    const members = await groupMembers(s.leader);
    expect(members.length).toBeGreaterThan(0);
    const memberInfo = members.map((m) => processInfo(m)).filter((p) => p !== undefined);
    const dir = fakeLab('lab-run-dead', { pid: await deadPid(), startTime: '1' }, [
      { pid: s.leader, startTime: s.startTime, group: true, name: 'postgres' },
    ]);
    const reaped = reapDeadLabs(root);
    expect(reaped).toEqual({ labs: 1, processes: 1 });
    expect(existsSync(dir)).toBe(false);
    // The whole group: the leader and what it started.
    await expect
      .poll(
        () =>
          [s.leader, ...memberInfo.map((m) => m.pid)].filter((pid) => {
            const p = processInfo(pid);
            return p !== undefined && stillRuns(p);
          }),
        { timeout: 5_000 },
      )
      .toEqual([]);
  });

  it('leaves the folder of a lab that still runs', () => {
    const dir = fakeLab('lab-run-live', { pid: process.pid, startTime: processStartTime(process.pid) }, []);
    expect(reapDeadLabs(root)).toEqual({ labs: 0, processes: 0 });
    expect(existsSync(dir)).toBe(true);
    rmSync(dir, { recursive: true });
  });

  it('takes a running PID with another start time for a reused PID: the owner is dead, that process is not signalled', () => {
    const s = sleeper();
    // The owner's PID runs, but it is not the lab that wrote owner.json (another start time).
    const dir = fakeLab('lab-run-reused', { pid: s.leader, startTime: '1' }, [
      { pid: s.leader, startTime: '1', group: true, name: 'redis' },
    ]);
    expect(reapDeadLabs(root)).toEqual({ labs: 1, processes: 0 });
    expect(existsSync(dir)).toBe(false);
    expect(stillRuns({ pid: s.leader, startTime: s.startTime })).toBe(true);
  });

  it('leaves a folder without owner.json while it may be a lab starting now, removes it once old', () => {
    const dir = fakeLab('lab-run-young', undefined, []);
    expect(reapDeadLabs(root)).toEqual({ labs: 0, processes: 0 });
    expect(existsSync(dir)).toBe(true);
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(dir, old, old);
    expect(reapDeadLabs(root)).toEqual({ labs: 1, processes: 0 });
    expect(existsSync(dir)).toBe(false);
  });

  it('looks only at lab-run-* folders: nothing else in the temp directory is touched', () => {
    const other = join(root, 'lab-dsql-left-by-someone');
    mkdirSync(other);
    expect(reapDeadLabs(root)).toEqual({ labs: 0, processes: 0 });
    expect(existsSync(other)).toBe(true);
  });
});

describe('tidyRunDir (at a lab stop)', () => {
  it("keeps this process's run directory while a recorded child runs or a folder is in it, removes it after", async () => {
    const child = await spawnChild('sleep', ['300'], { name: 'sleeper' });
    const folder = await labTempDir('lab-tidy-');
    const dir = runDir();
    tidyRunDir();
    expect(existsSync(dir)).toBe(true);
    await child.stop();
    tidyRunDir();
    expect(existsSync(dir)).toBe(true);
    rmSync(folder, { recursive: true });
    tidyRunDir();
    expect(existsSync(dir)).toBe(false);
    // The next folder makes it again.
    const again = await labTempDir('lab-tidy-');
    expect(existsSync(again)).toBe(true);
    rmSync(again, { recursive: true });
    tidyRunDir();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('the run data (labDataDir)', () => {
  it('lives in memory-backed files where the machine has /dev/shm, in a folder of this process removed at a stop once empty', async () => {
    if (existsSync('/dev/shm')) expect(dataRoot()).toBe('/dev/shm');
    const folder = await labDataDir('lab-data-test-');
    const parent = dirname(folder);
    expect(dirname(parent)).toBe(dataRoot());
    expect(existsSync(join(parent, 'owner.json'))).toBe(true);
    tidyRunDir();
    expect(existsSync(folder)).toBe(true);
    rmSync(folder, { recursive: true });
    tidyRunDir();
    expect(existsSync(parent)).toBe(false);
  });

  it("is reaped with a dead lab's run directory by a start's reapDeadLabs()", async () => {
    const dir = join(dataRoot(), `lab-run-test-dead-${process.pid}`);
    mkdirSync(join(dir, 'lab-qldb-abc123'), { recursive: true });
    writeFileSync(join(dir, 'owner.json'), JSON.stringify({ pid: await deadPid(), startTime: '1' }));
    writeFileSync(join(dir, 'lab-qldb-abc123', 'qldb-journal.jsonl'), '');
    reapDeadLabs();
    expect(existsSync(dir)).toBe(false);
  });
});
