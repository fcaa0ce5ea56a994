/**
 * Processes by /proc, for the lifecycle tests: a process tree walked from a root PID, and
 * whether a recorded process (PID + start time) still runs. Linux only, as the lab's cgroups.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** /proc/<pid>/stat starttime: identifies the process across PID reuse. */
  readonly startTime: string;
  readonly state: string;
  readonly command: string;
}

export function processInfo(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  const f = stat.slice(close + 2).split(' ');
  let command = stat.slice(stat.indexOf('(') + 1, close);
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() || command;
  } catch {
    // gone meanwhile
  }
  return { pid, state: f[0], ppid: Number(f[1]), pgid: Number(f[2]), startTime: f[19], command };
}

/** Every process now running on the machine. */
export function allProcesses(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => processInfo(Number(n)))
    .filter((p): p is ProcessInfo => p !== undefined);
}

/** The descendants of root (not root itself), walked by parent PID. */
export function descendants(root: number): ProcessInfo[] {
  const all = allProcesses();
  const out: ProcessInfo[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop() as number;
    for (const p of all) {
      if (p.ppid === parent) {
        out.push(p);
        frontier.push(p.pid);
      }
    }
  }
  return out;
}

/** The process still runs (a zombie does not count) and is the one recorded. */
export function stillRuns(p: Pick<ProcessInfo, 'pid' | 'startTime'>): boolean {
  const now = processInfo(p.pid);
  return now !== undefined && now.startTime === p.startTime && now.state !== 'Z';
}
