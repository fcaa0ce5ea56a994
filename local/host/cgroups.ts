/**
 * Linux cgroups for execution environments: one cgroup per environment, under a parent the
 * lab owns and names with its PID (`latency-lab-<pid>-<n>`), so a later start can remove what a
 * dead lab left. Both hierarchies: v2 (cpu.max, memory.max, memory.peak, memory.events) and
 * v1 (cpu.cfs_quota_us / cfs_period_us, memory.limit_in_bytes, memory.max_usage_in_bytes,
 * memory.oom_control). Detected once; when cgroups cannot be used, `openCgroups` says why in
 * one line and the lab runs every environment at full host speed, marked "not modeled".
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmdirSync,
  write,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CFS_PERIOD_US, type CpuLimit, MB_PER_VCPU } from './lambda-memory';

export type CgroupMechanism = 'cgroup-v2' | 'cgroup-v1';

/** What the lab modeled of Lambda's memory setting, as summary.json and the report state it. */
export interface MemoryModel {
  /** CPU share and memory ceiling applied per environment. */
  readonly modeled: boolean;
  readonly mechanism: CgroupMechanism | 'none';
  /** Why memory is not modeled (absent when it is). */
  readonly reason?: string;
  /** Cores the host has: the cap of any share. */
  readonly hostCores: number;
}

const PARENT_PREFIX = 'latency-lab-';
/** `latency-lab-<pid>-<n>`: the owner's PID, then which of its labs (a process may run several). */
const PARENT_NAME = /^latency-lab-(\d+)(?:-\d+)?$/;
let parentsMade = 0;

/** The lines of /proc/self/mountinfo that mount a cgroup hierarchy. */
interface CgroupMount {
  readonly mountPoint: string;
  readonly type: 'cgroup' | 'cgroup2';
  /** v1: the controllers the hierarchy carries (from the super options). */
  readonly controllers: readonly string[];
}

function cgroupMounts(mountinfo: string): CgroupMount[] {
  const out: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [pre, post] = line.split(' - ');
    if (!post) continue;
    const [type, , superOptions = ''] = post.split(' ');
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    const mountPoint = pre.split(' ')[4].replace(/\\040/g, ' ');
    out.push({ mountPoint, type, controllers: type === 'cgroup' ? superOptions.split(',') : [] });
  }
  return out;
}

/** /proc/self/cgroup: hierarchy controllers -> this process's path in it ('' is v2's). */
function ownPaths(procCgroup: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of procCgroup.split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const c of m[1] === '' ? [''] : m[1].split(',')) out.set(c, m[2]);
  }
  return out;
}

const read = (path: string): string => readFileSync(path, 'utf8').trim();
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The directories one cgroup spans: one for v2, one per controller for v1. */
interface Dirs {
  readonly cpu: string;
  readonly memory: string;
  /** v1's freezer hierarchy, when mounted (v2 freezes with cgroup.freeze in the same directory). */
  readonly freezer?: string;
}

const dirsOf = (d: Dirs): string[] => [...new Set([d.cpu, d.memory, ...(d.freezer ? [d.freezer] : [])])];

/** One execution environment's cgroup. */
/** A CFS quota's toll: periods run, periods in which it throttled, time spent throttled (ms). */
export interface CpuThrottling {
  readonly periods: number;
  readonly throttled: number;
  readonly throttledMs: number;
}

/** Several cgroups' throttling added up; undefined when there is none (no cgroups). */
export function sumThrottling(all: readonly CpuThrottling[]): CpuThrottling | undefined {
  if (all.length === 0) return undefined;
  return all.reduce((a, t) => ({
    periods: a.periods + t.periods,
    throttled: a.throttled + t.throttled,
    throttledMs: a.throttledMs + t.throttledMs,
  }));
}

export class EnvironmentCgroup {
  private removed = false;
  /** The last freeze or thaw asked of setFrozen: each waits for the one before. */
  private freezer: Promise<void> = Promise.resolve();
  /** setFrozen writes not yet landed: a synchronous thaw must not overtake them. */
  private inFlight = 0;
  /**
   * The freezer file and the peak-memory file, opened once: every invocation writes the one and
   * reads the other, and an open, a write and a close cost three of libuv's thread-pool hops
   * (each one a wait on a busy host), one write none.
   */
  private freezeFd?: number;
  private peakFd?: number;
  private readonly peakBuf = Buffer.alloc(32);
  constructor(
    readonly mechanism: CgroupMechanism,
    private readonly dirs: Dirs,
  ) {}

  /** Where a process id goes to join this cgroup (the v1 hierarchies each need it). */
  get procsFiles(): string[] {
    return dirsOf(this.dirs).map((d) => join(d, 'cgroup.procs'));
  }

  private get freezeFile(): string | undefined {
    if (this.mechanism === 'cgroup-v2') return join(this.dirs.cpu, 'cgroup.freeze');
    return this.dirs.freezer ? join(this.dirs.freezer, 'freezer.state') : undefined;
  }

  private freezeValue(frozen: boolean): string {
    return this.mechanism === 'cgroup-v2' ? (frozen ? '1' : '0') : frozen ? 'FROZEN' : 'THAWED';
  }

  /** The freezer file's descriptor, opened on first use; undefined where there is none. */
  private freezerFd(): number | undefined {
    if (this.freezeFd !== undefined || this.removed) return this.freezeFd;
    const f = this.freezeFile;
    if (!f) return undefined;
    try {
      this.freezeFd = openSync(f, 'w');
    } catch {
      // gone or not permitted: freezing is best effort
    }
    return this.freezeFd;
  }

  /** Can stop every process of the environment between invocations, as Lambda freezes a sandbox. */
  get canFreeze(): boolean {
    const f = this.freezeFile;
    return f !== undefined && existsSync(f);
  }

  /** Stops the environment's processes where they are (best effort: a failure leaves it running). */
  freeze(): void {
    const f = this.freezeFile;
    if (!f) return;
    try {
      writeFileSync(f, this.freezeValue(true));
    } catch {
      // Running on, unfrozen, costs fidelity only.
    }
  }

  /**
   * Freezes or thaws from libuv's thread pool, in the order asked; resolves once written (a
   * failure leaves the state as it was, as freeze and thaw do). The write blocks while the kernel
   * stops or wakes every thread of the environment, which can take milliseconds in its tail. A
   * freeze is never on a request's path, so it goes here, off the event loop.
   */
  setFrozen(frozen: boolean): Promise<void> {
    const fd = this.freezerFd();
    if (fd === undefined) return this.freezer;
    const value = this.freezeValue(frozen);
    this.inFlight += 1;
    this.freezer = this.freezer
      .then(
        () =>
          new Promise<void>((resolve) => {
            // Closed meanwhile (the cgroup removed): nothing left to freeze.
            if (this.freezeFd !== fd) resolve();
            else write(fd, value, () => resolve());
          }),
      )
      .finally(() => {
        this.inFlight -= 1;
      });
    return this.freezer;
  }

  /** Resolves once every freeze and thaw asked of setFrozen so far has landed. */
  settled(): Promise<void> {
    return this.freezer;
  }

  /**
   * Thaws for an invocation and returns how long the write took, ms (the kernel waking the
   * environment's threads, which Lambda's own sandbox pays too), or undefined when it went
   * through the thread pool behind a freeze still in flight. Synchronous when nothing is in
   * flight: the environment can run no sooner than the thaw lands, and a thread-pool hop only
   * delays that landing (a hop can cost more than the write itself).
   */
  thawForInvoke(): number | undefined {
    if (this.inFlight > 0) {
      void this.setFrozen(false);
      return undefined;
    }
    const fd = this.freezerFd();
    if (fd === undefined) return undefined;
    const t = performance.now();
    try {
      writeSync(fd, this.freezeValue(false));
    } catch {
      // gone already: its exit reports it
    }
    return performance.now() - t;
  }

  /** Lets the environment's processes run again. */
  thaw(): void {
    const f = this.freezeFile;
    if (!f) return;
    try {
      writeFileSync(f, this.freezeValue(false));
    } catch {
      // gone already
    }
  }

  addProcess(pid: number): void {
    for (const f of this.procsFiles) writeFileSync(f, String(pid));
  }

  setCpu(limit: CpuLimit): void {
    if (this.mechanism === 'cgroup-v2') {
      writeFileSync(join(this.dirs.cpu, 'cpu.max'), `${limit.quotaUs} ${limit.periodUs}`);
    } else {
      // The period first: a quota above the old period would otherwise be checked against it.
      writeFileSync(join(this.dirs.cpu, 'cpu.cfs_period_us'), String(limit.periodUs));
      writeFileSync(join(this.dirs.cpu, 'cpu.cfs_quota_us'), String(limit.quotaUs));
    }
  }

  /** The CPU quota and memory ceiling as the kernel holds them now (read back from the files). */
  limits(): { quotaUs: number; periodUs: number; memoryBytes: number } {
    const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8').trim();
    const memoryBytes = Number(
      read(this.dirs.memory, this.mechanism === 'cgroup-v2' ? 'memory.max' : 'memory.limit_in_bytes'),
    );
    if (this.mechanism === 'cgroup-v2') {
      const [quota, period] = read(this.dirs.cpu, 'cpu.max').split(' ');
      return { quotaUs: quota === 'max' ? -1 : Number(quota), periodUs: Number(period), memoryBytes };
    }
    return {
      quotaUs: Number(read(this.dirs.cpu, 'cpu.cfs_quota_us')),
      periodUs: Number(read(this.dirs.cpu, 'cpu.cfs_period_us')),
      memoryBytes,
    };
  }

  setMemory(bytes: number): void {
    if (this.mechanism === 'cgroup-v2') {
      writeFileSync(join(this.dirs.memory, 'memory.max'), String(bytes));
      // Swap would let an environment outgrow its setting instead of dying as in Lambda.
      const swap = join(this.dirs.memory, 'memory.swap.max');
      if (existsSync(swap)) writeFileSync(swap, '0');
    } else {
      writeFileSync(join(this.dirs.memory, 'memory.limit_in_bytes'), String(bytes));
    }
  }

  /**
   * How often the CFS quota (the memory setting's CPU share) stopped the environment so far.
   * Undefined if unreadable. For benches: what memory-as-CPU costs a run, printed, not guessed.
   */
  cpuThrottling(): CpuThrottling | undefined {
    try {
      const text = read(join(this.dirs.cpu, 'cpu.stat'));
      const field = (name: string) =>
        Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
      const periods = field('nr_periods');
      const throttled = field('nr_throttled');
      // v1 counts ns (throttled_time), v2 µs (throttled_usec).
      const throttledMs =
        this.mechanism === 'cgroup-v2' ? field('throttled_usec') / 1000 : field('throttled_time') / 1e6;
      return [periods, throttled, throttledMs].every(Number.isFinite)
        ? { periods, throttled, throttledMs }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** Peak memory of the environment so far, bytes (what Lambda's Max Memory Used reports); undefined if unreadable. */
  peakBytes(): number | undefined {
    // v1: one file, read through a descriptor kept open (pread at 0 re-reads the live value).
    if (this.mechanism === 'cgroup-v1' && !this.removed) {
      try {
        this.peakFd ??= openSync(join(this.dirs.memory, 'memory.max_usage_in_bytes'), 'r');
        const n = Number(this.peakBuf.toString('latin1', 0, readSync(this.peakFd, this.peakBuf, 0, 32, 0)));
        if (Number.isFinite(n)) return n;
      } catch {
        // fall back to reading the file by name
      }
    }
    const files =
      this.mechanism === 'cgroup-v2' ? ['memory.peak', 'memory.current'] : ['memory.max_usage_in_bytes'];
    for (const f of files) {
      try {
        const n = Number(read(join(this.dirs.memory, f)));
        if (Number.isFinite(n)) return n;
      } catch {
        // older kernels lack memory.peak: try the next
      }
    }
    return undefined;
  }

  /** Processes the kernel's OOM killer ended in this cgroup. */
  oomKills(): number {
    try {
      const text = read(
        join(this.dirs.memory, this.mechanism === 'cgroup-v2' ? 'memory.events' : 'memory.oom_control'),
      );
      const m = /^oom_kill (\d+)$/m.exec(text);
      if (m) return Number(m[1]);
      // v1 kernels before 4.13 have no oom_kill count: a hit limit is the best evidence left.
      return this.mechanism === 'cgroup-v1' ? Number(read(join(this.dirs.memory, 'memory.failcnt'))) : 0;
    } catch {
      return 0;
    }
  }

  /** Removes the cgroup once its processes are gone (an exiting process can hold it a moment). */
  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    // A freeze still in flight lands first, then the thaw (a frozen process cannot die), and only
    // then are the descriptors closed: a write must never meet a number reused by another file.
    await this.freezer;
    this.thaw();
    for (const fd of [this.freezeFd, this.peakFd]) {
      if (fd === undefined) continue;
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    this.freezeFd = undefined;
    this.peakFd = undefined;
    for (const d of dirsOf(this.dirs)) await removeDir(d);
  }
}

async function removeDir(dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      rmdirSync(dir);
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY' || attempt >= 50) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** The lab's parent cgroup: every environment's cgroup is a child of it. */
export class CgroupTree {
  private next = 0;
  private readonly children = new Set<EnvironmentCgroup>();

  constructor(
    readonly mechanism: CgroupMechanism,
    /** The parent's directory in each hierarchy. */
    private readonly parents: Dirs,
  ) {
    // A frozen process cannot die until it is thawed: when the lab exits without its stop (a
    // second Ctrl-C kills environments by process group), thaw them so the kill takes effect
    // now rather than at the next lab's start.
    process.once('exit', this.thawAll);
  }

  /** Thaws every environment of this tree, synchronously (safe in an 'exit' listener). */
  readonly thawAll = (): void => {
    for (const cg of this.children) cg.thaw();
  };

  /** A fresh cgroup for one environment. */
  create(label: string): EnvironmentCgroup {
    const name = `env-${++this.next}-${label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60)}`;
    const dirs: Dirs = {
      cpu: join(this.parents.cpu, name),
      memory: join(this.parents.memory, name),
      ...(this.parents.freezer ? { freezer: join(this.parents.freezer, name) } : {}),
    };
    for (const d of dirsOf(dirs)) mkdirSync(d);
    const cg = new EnvironmentCgroup(this.mechanism, dirs);
    this.children.add(cg);
    this.weigh();
    return cg;
  }

  async release(cg: EnvironmentCgroup): Promise<void> {
    this.children.delete(cg);
    this.weigh();
    await cg.remove();
  }

  /**
   * The scheduler weighs the parent as one task against every other task beside it: with the
   * default weight, all the lab's environments together would get what one process gets on a
   * busy host. Weighted by the number of environments, each competes as the plain process it
   * would be without cgroups; its quota still caps it at its memory's share.
   */
  private weigh(): void {
    const n = Math.max(1, this.children.size);
    try {
      if (this.mechanism === 'cgroup-v2') {
        writeFileSync(join(this.parents.cpu, 'cpu.weight'), String(Math.min(10_000, 100 * n)));
      } else {
        writeFileSync(join(this.parents.cpu, 'cpu.shares'), String(Math.min(262_144, 1024 * n)));
      }
    } catch {
      // Fairness under contention only: the limits themselves are in place either way.
    }
  }

  /** Removes every child left and the parent itself. */
  async remove(): Promise<void> {
    process.removeListener('exit', this.thawAll);
    for (const cg of [...this.children]) await this.release(cg).catch(() => {});
    for (const d of dirsOf(this.parents)) await removeStale(d);
  }
}

/** Ends what is left in a cgroup tree (depth 1) and removes it. */
async function removeStale(parent: string): Promise<void> {
  if (!existsSync(parent)) return;
  for (const e of readdirSync(parent, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = join(parent, e.name);
    // A frozen process cannot die until it is thawed.
    for (const [file, value] of [
      ['freezer.state', 'THAWED'],
      ['cgroup.freeze', '0'],
    ]) {
      if (existsSync(join(dir, file))) writeFileSync(join(dir, file), value);
    }
    for (const pid of read(join(dir, 'cgroup.procs')).split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await removeDir(dir);
  }
  await removeDir(parent);
}

export interface OpenCgroupsOptions {
  /** @default process.pid: the parent is latency-lab-<ownerPid>-<n> */
  readonly ownerPid?: number;
  /** Test seams. @default the files under /proc/self */
  readonly mountinfo?: string;
  readonly procCgroup?: string;
}

export type OpenedCgroups =
  | { readonly tree: CgroupTree; readonly model: MemoryModel; readonly removedStale: number }
  | { readonly tree?: undefined; readonly model: MemoryModel; readonly removedStale: number };

const notModeled = (reason: string): OpenedCgroups => ({
  model: { modeled: false, mechanism: 'none', reason, hostCores: availableParallelism() },
  removedStale: 0,
});

/** Where this process may make cgroups, per hierarchy; a reason when it may not. */
function bases(mountinfo: string, procCgroup: string): { mechanism: CgroupMechanism; dirs: Dirs } | string {
  const mounts = cgroupMounts(mountinfo);
  const own = ownPaths(procCgroup);
  const v1 = (c: string) => mounts.find((m) => m.type === 'cgroup' && m.controllers.includes(c));
  const cpu1 = v1('cpu');
  const mem1 = v1('memory');
  if (cpu1 && mem1) {
    const freezer = v1('freezer');
    return {
      mechanism: 'cgroup-v1',
      dirs: {
        cpu: join(cpu1.mountPoint, own.get('cpu') ?? '/'),
        memory: join(mem1.mountPoint, own.get('memory') ?? '/'),
        ...(freezer ? { freezer: join(freezer.mountPoint, own.get('freezer') ?? '/') } : {}),
      },
    };
  }
  const v2 = mounts.find((m) => m.type === 'cgroup2');
  if (!v2) return 'no cgroup v2 hierarchy and no v1 cpu and memory hierarchies are mounted';
  // A child gets a controller only if its parent lists it in cgroup.subtree_control; a
  // cgroup with processes of its own (other than the root) cannot enable one for its children.
  const handsDown = (dir: string): boolean => {
    const enabled = () => {
      try {
        return read(join(dir, 'cgroup.subtree_control')).split(' ');
      } catch {
        return [];
      }
    };
    if (['cpu', 'memory'].every((c) => enabled().includes(c))) return true;
    try {
      writeFileSync(join(dir, 'cgroup.subtree_control'), '+cpu +memory');
    } catch {
      return false;
    }
    return ['cpu', 'memory'].every((c) => enabled().includes(c));
  };
  const ownDir = join(v2.mountPoint, own.get('') ?? '/');
  for (const dir of [...new Set([ownDir, v2.mountPoint])]) {
    if (handsDown(dir)) return { mechanism: 'cgroup-v2', dirs: { cpu: dir, memory: dir } };
  }
  return `cgroup v2 at ${v2.mountPoint} offers no cpu and memory controllers here (no delegation)`;
}

/**
 * Detects the machine's cgroups, removes the parents of labs that are gone, and makes this
 * lab's parent with what its children need. Never throws: a failure is the reason in the model.
 */
export async function openCgroups(opts: OpenCgroupsOptions = {}): Promise<OpenedCgroups> {
  if (process.platform !== 'linux') return notModeled(`cgroups are Linux's; this is ${process.platform}`);
  let mountinfo: string;
  let procCgroup: string;
  try {
    mountinfo = opts.mountinfo ?? readFileSync('/proc/self/mountinfo', 'utf8');
    procCgroup = opts.procCgroup ?? readFileSync('/proc/self/cgroup', 'utf8');
  } catch (e) {
    return notModeled(`cannot read /proc/self: ${(e as Error).message}`);
  }
  const found = bases(mountinfo, procCgroup);
  if (typeof found === 'string') return notModeled(found);
  const { mechanism, dirs } = found;
  let removedStale = 0;
  for (const base of dirsOf(dirs)) {
    try {
      for (const e of readdirSync(base, { withFileTypes: true })) {
        const owner = PARENT_NAME.exec(e.name);
        if (!e.isDirectory() || !owner || isRunning(Number(owner[1]))) continue;
        await removeStale(join(base, e.name));
        removedStale += 1;
      }
    } catch {
      // a leftover we cannot remove is not this lab's problem; making our own parent may still work
    }
  }
  const name = `${PARENT_PREFIX}${opts.ownerPid ?? process.pid}-${++parentsMade}`;
  const parents: Dirs = {
    cpu: join(dirs.cpu, name),
    memory: join(dirs.memory, name),
    ...(dirs.freezer ? { freezer: join(dirs.freezer, name) } : {}),
  };
  const made: string[] = [];
  try {
    for (const d of dirsOf(parents)) {
      mkdirSync(d);
      made.push(d);
    }
    if (mechanism === 'cgroup-v2') {
      // Children get cpu and memory only if the parent hands them down.
      writeFileSync(join(parents.cpu, 'cgroup.subtree_control'), '+cpu +memory');
    } else {
      // Charges and limits of the children count in the parent too (the default on v2).
      const hierarchy = join(parents.memory, 'memory.use_hierarchy');
      if (existsSync(hierarchy) && read(hierarchy) !== '1') writeFileSync(hierarchy, '1');
    }
  } catch (e) {
    for (const d of made.reverse()) await removeDir(d).catch(() => {});
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' ? 'not permitted' : err.code;
    return {
      ...notModeled(
        `cannot make a ${mechanism} cgroup under ${dirs.cpu} (${why}; run as root or delegate a cgroup)`,
      ),
      removedStale,
    };
  }
  return {
    tree: new CgroupTree(mechanism, parents),
    model: { modeled: true, mechanism, hostCores: availableParallelism() },
    removedStale,
  };
}

/** The one line a lab prints at start about how it models memory. */
export function memoryModelLine(m: MemoryModel, removedStale = 0): string {
  const stale = removedStale > 0 ? ` (removed ${removedStale} cgroup tree(s) a stopped lab left)` : '';
  return m.modeled
    ? `Memory is CPU: ${m.mechanism}, each environment gets memory / ${MB_PER_VCPU} MB of a core (CFS quota per ${CFS_PERIOD_US / 1000} ms, at most ${m.hostCores} cores here), a memory ceiling and Lambda's heap flags${stale}`
    : `Memory not modeled: ${m.reason}. Environments run at full host speed with no memory ceiling; every figure of this run is marked "memory not modeled".`;
}

/** `sh -c` script: write the shell's pid into each cgroup.procs file, then exec "$0" "$@" (node and its arguments). */
export function joinCgroupScript(procsFiles: readonly string[]): string {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${procsFiles.map((f) => `echo $$ > ${quote(f)}`).join(' && ')} && exec "$0" "$@"`;
}
