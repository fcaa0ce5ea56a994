/**
 * The lab's run directory: one per process that runs lab engines, environments or Artillery,
 * `<tmpdir>/lab-run-<pid>/` (`-<threadId>` appended in a worker thread; mode 0711: the postgres
 * user must reach its cluster inside). It holds
 * - `owner.json`: this process's PID and start time, the lab's own record of who owns the folder;
 * - `children.jsonl`: every child the lab started (PID, start time, own process group or not),
 *   appended the moment it is spawned;
 * - every temporary folder the lab makes (PostgreSQL clusters and sockets, DynamoDB Local's).
 *
 * The engines' own data (labDataDir) goes to memory-backed files where the machine has them:
 * a second folder of the same name and kind under /dev/shm, with its own owner.json, removed
 * and reaped the same way. Elsewhere it lives in the run directory itself.
 *
 * A process that exits normally (or on a second Ctrl-C, through process.exit) ends its recorded
 * children by process group and removes the folder in its 'exit' listener. One that was
 * SIGKILLed cannot: the next lab's start (`reapDeadLabs`) finds folders whose owner is gone,
 * ends the recorded children that still run, and deletes the folder.
 *
 * Nothing is ever recognised by its name: a folder is a dead lab's only when owner.json names a
 * PID that no longer runs, or runs with another start time (the PID was reused); a child is
 * ended only while its PID still has the start time recorded at spawn, so a reused PID is
 * never signalled.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  appendFileSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const PREFIX = 'lab-run-';
const OWNER_FILE = 'owner.json';
const CHILDREN_FILE = 'children.jsonl';
/** A folder without owner.json younger than this may be a lab starting right now. */
const UNOWNED_GRACE_MS = 60_000;

/** Identifies one process across PID reuse. */
export interface ProcessId {
  readonly pid: number;
  /** Kernel start time (Linux: clock ticks after boot, /proc/<pid>/stat), or ps's lstart elsewhere; null if unknown. */
  readonly startTime: string | null;
}

export interface ChildRecord extends ProcessId {
  /** The child leads its own process group (spawned detached): end the whole group. */
  readonly group: boolean;
  readonly name: string;
}

/** The start time of a running process, or undefined when it does not run (or cannot be read). */
export function processStartTime(pid: number): string | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The name (field 2) may hold spaces and parentheses: count fields after the last ')'.
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    } catch {
      return undefined;
    }
  }
  const r = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' });
  const out = r.status === 0 ? r.stdout.trim() : '';
  return out === '' ? undefined : out;
}

/** The process runs and is the one recorded (same start time); unknown start times count as the same. */
export function isSameProcess(p: ProcessId): boolean {
  try {
    process.kill(p.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = processStartTime(p.pid);
  return p.startTime === null || now === undefined || now === p.startTime;
}

/** SIGKILLs a recorded child (its process group when it leads one) if it is still that process. */
function endChild(c: ChildRecord): boolean {
  // A start time we could not read proves nothing: never signal a PID we cannot identify.
  if (c.startTime === null || !isSameProcess(c)) return false;
  try {
    process.kill(c.group ? -c.pid : c.pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

let own: { dir: string; children: ChildRecord[] } | undefined;
/** This process's folder under the data root, when that is not the temp directory. */
let ownData: string | undefined;
const SHM = '/dev/shm';

/** Where engine data lives without --data: memory-backed files when there are any, else the temp directory. */
export function dataRoot(): string {
  try {
    accessSync(SHM, constants.W_OK | constants.X_OK);
    if (statSync(SHM).isDirectory()) return SHM;
  } catch {
    // no /dev/shm here (macOS), or not ours to write
  }
  return tmpdir();
}

function folderName(): string {
  // Worker threads share the PID: each gets a folder of its own.
  return `${PREFIX}${process.pid}${threadId === 0 ? '' : `-${threadId}`}`;
}

function hookExit(): void {
  if (!exitHooked) process.once('exit', endOwnNow);
  exitHooked = true;
}

function self(): ProcessId {
  return { pid: process.pid, startTime: processStartTime(process.pid) ?? null };
}

/** This process's run directory, made on first use. */
export function runDir(): string {
  if (own) return own.dir;
  const dir = join(tmpdir(), folderName());
  // A folder under our PID is a dead process's (a reused PID): reap it before taking the name.
  reapFolder(dir);
  mkdirSync(dir, { mode: 0o711 });
  writeOwner(dir);
  own = { dir, children: [] };
  hookExit();
  return dir;
}

/** This process's folder for engine data: under dataRoot(), or the run directory itself. */
function dataRunDir(): string {
  const root = dataRoot();
  if (root === tmpdir()) return runDir();
  if (ownData) return ownData;
  const dir = join(root, folderName());
  reapFolder(dir);
  // 0711 as the run directory: the postgres user must reach a cluster inside.
  mkdirSync(dir, { mode: 0o711 });
  writeOwner(dir);
  ownData = dir;
  hookExit();
  return dir;
}

let exitHooked = false;

function writeOwner(dir: string): void {
  writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ ...self(), cwd: process.cwd(), argv: process.argv }));
}

/**
 * After a lab's stop: removes the run directory when nothing of the lab's is left in it (no
 * recorded child running, no folder), so a process that goes on (a test worker, a bench) or is
 * ended by a signal leaves nothing behind. The next child or folder makes it again.
 */
export function tidyRunDir(): void {
  tidyDataDir();
  if (!own) return;
  const { dir, children } = own;
  if (children.some((c) => c.startTime !== null && isSameProcess(c))) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    own = undefined;
    return;
  }
  if (names.some((n) => n !== OWNER_FILE && n !== CHILDREN_FILE)) return;
  try {
    rmSync(join(dir, CHILDREN_FILE), { force: true });
    rmSync(join(dir, OWNER_FILE), { force: true });
    // Not recursive: a folder made meanwhile (another lab in this process) keeps it.
    rmdirSync(dir);
    own = undefined;
  } catch {
    // In use again: it must keep naming its owner, or a later start would take it for a dead lab's.
    writeOwner(dir);
  }
}

function tidyDataDir(): void {
  if (!ownData) return;
  const dir = ownData;
  try {
    if (readdirSync(dir).some((n) => n !== OWNER_FILE)) return;
    rmSync(join(dir, OWNER_FILE), { force: true });
    rmdirSync(dir);
    ownData = undefined;
  } catch {
    if (existsSync(dir)) writeOwner(dir);
    else ownData = undefined;
  }
}

/** A fresh folder for the lab inside the run directory (removed with it however the lab ends). */
export function labTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(runDir(), prefix));
}

/**
 * A fresh folder for an engine's data without --data: memory-backed files where the machine has
 * them (dataRoot()), removed however the lab ends, as labTempDir's are. It outlives the engine's
 * process, so an engine killed and started again on it finds what it acknowledged.
 */
export function labDataDir(prefix: string): Promise<string> {
  return mkdtemp(join(dataRunDir(), prefix));
}

/** Records a child the lab started, so that a later start can end it if this process cannot. */
export function recordChild(pid: number, name: string, group: boolean): void {
  const dir = runDir();
  const record: ChildRecord = { pid, startTime: processStartTime(pid) ?? null, group, name };
  own?.children.push(record);
  appendFileSync(join(dir, CHILDREN_FILE), `${JSON.stringify(record)}\n`);
}

/**
 * Synchronous, for 'exit': ends every recorded child still running (by process group) and
 * removes the run directory. Called at exit; a stopped lab has nothing left to end.
 */
export function endOwnNow(): void {
  if (ownData) {
    try {
      rmSync(ownData, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // the next start removes the rest
    }
    ownData = undefined;
  }
  if (!own) return;
  for (const c of own.children) endChild(c);
  try {
    rmSync(own.dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // a process we just killed may still be closing files; the next start removes the rest
  }
  own = undefined;
}

export interface Reaped {
  /** Dead labs whose folders were removed. */
  readonly labs: number;
  /** Their children that still ran and were ended. */
  readonly processes: number;
}

function readOwner(dir: string): ProcessId | undefined {
  try {
    const o = JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as Partial<ProcessId>;
    if (typeof o.pid !== 'number') return undefined;
    return { pid: o.pid, startTime: typeof o.startTime === 'string' ? o.startTime : null };
  } catch {
    return undefined;
  }
}

function readChildren(dir: string): ChildRecord[] {
  let text: string;
  try {
    text = readFileSync(join(dir, CHILDREN_FILE), 'utf8');
  } catch {
    return [];
  }
  const out: ChildRecord[] = [];
  for (const line of text.split('\n')) {
    try {
      const c = JSON.parse(line) as ChildRecord;
      if (typeof c.pid === 'number' && c.pid > 1) out.push(c);
    } catch {
      // a line cut short by the SIGKILL that ended its writer
    }
  }
  return out;
}

/** Reaps one folder if its owner is gone; returns the children ended, or undefined if left alone. */
function reapFolder(dir: string): number | undefined {
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(dir).mtimeMs;
  } catch {
    return undefined; // no such folder
  }
  const owner = readOwner(dir);
  if (owner === undefined) {
    if (ageMs < UNOWNED_GRACE_MS) return undefined;
  } else if (isSameProcess(owner)) {
    return undefined;
  }
  let ended = 0;
  for (const c of readChildren(dir)) if (endChild(c)) ended += 1;
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  return ended;
}

/**
 * Finds the run directories of labs that are gone (SIGKILLed, crashed) in the temp directory
 * and the data root (or in `root` alone), ends their recorded children that still run and
 * removes the folders. Never throws: a folder it cannot remove is left for the next start.
 */
export function reapDeadLabs(root?: string): Reaped {
  if (root !== undefined) return reapIn(root);
  const labs = reapIn(tmpdir());
  // A dead lab's data folder: no children of its own (they are recorded in its run directory).
  if (dataRoot() !== tmpdir()) reapIn(dataRoot());
  return labs;
}

function reapIn(root: string): Reaped {
  let labs = 0;
  let processes = 0;
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return { labs, processes };
  }
  for (const name of names) {
    // The prefix only narrows the search: ownership is decided by owner.json.
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(root, name);
    if (own?.dir === dir || ownData === dir) continue;
    try {
      const ended = reapFolder(dir);
      if (ended === undefined) continue;
      labs += 1;
      processes += ended;
    } catch {
      // left for the next start
    }
  }
  return { labs, processes };
}

/**
 * Where a target's engine keeps its data: a subfolder of --data (kept at stop and fsynced), the
 * run data (labDataDir; removed at stop), or nowhere (the bench's in-memory engines).
 */
export async function engineDataDir(
  opts: { readonly dataDir?: string; readonly inMemory?: boolean },
  name: string,
): Promise<{ dataDir: string | undefined; durable: boolean; removeData: () => Promise<void> }> {
  const durable = opts.dataDir !== undefined;
  const dataDir = opts.dataDir
    ? join(opts.dataDir, name)
    : opts.inMemory
      ? undefined
      : await labDataDir(`lab-${name}-`);
  const removeData = () =>
    durable || dataDir === undefined ? Promise.resolve() : rm(dataDir, { recursive: true, force: true });
  return { dataDir, durable, removeData };
}
