/**
 * Nothing the lab starts listens beyond loopback: with every target's engine running, each
 * listening TCP socket owned by this process or one it started (engines, network models,
 * function environments, the API, the extension stand-in) is bound to 127.0.0.1 or ::1.
 * Read from /proc/net/tcp and tcp6, as `ss -ltn` reads them, matched to the processes by inode.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';

/** This process and every descendant, from /proc/<pid>/stat's parent field. */
function processTree(root: number): Set<number> {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // exited meanwhile
    }
  }
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents)
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  return tree;
}

function socketInodes(pids: Iterable<number>): Map<string, number> {
  const inodes = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.set(m[1] as string, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return inodes;
}

const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000']);

/** Every LISTEN socket of /proc/net/tcp{,6}: its hex local address, port and inode. */
function listeners(): { family: string; address: string; port: number; inode: string }[] {
  return ['tcp', 'tcp6'].flatMap((family) =>
    readFileSync(`/proc/net/${family}`, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((f) => f[3] === '0A')
      .map((f) => {
        const [address, port] = (f[1] as string).split(':');
        return {
          family,
          address: address as string,
          port: Number.parseInt(port as string, 16),
          inode: f[9] as string,
        };
      }),
  );
}

describe('the lab listens on loopback only', () => {
  let lab: RunningLab;
  beforeAll(async () => {
    // The context `npm run local --targets ...` synthesizes with, so both share one cloud assembly.
    lab = await startLab({
      port: 0,
      context: { targets: 'dynamodb,qldb,redis,dsql', keepAlive: 'both', provisionedConcurrency: '0' },
    });
  }, 300_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('with every engine started, no listening socket of the lab is outside 127.0.0.1 and ::1', () => {
    expect([...lab.targets.keys()].sort()).toEqual(['dsql', 'dynamodb', 'qldb', 'redis']);
    const owned = socketInodes(processTree(process.pid));
    const ours = listeners().filter((l) => owned.has(l.inode));
    // The API, and per target at least the engine's and the model's ports.
    expect(ours.length).toBeGreaterThanOrEqual(1 + 2 * 4);
    const apiPort = Number(new URL(lab.url).port);
    expect(ours.map((l) => l.port)).toContain(apiPort);
    for (const { model } of lab.targets.values()) expect(ours.map((l) => l.port)).toContain(model.port);
    expect(
      ours.filter((l) => !LOOPBACK.has(l.address)).map((l) => ({ ...l, pid: owned.get(l.inode) })),
    ).toEqual([]);
  });
});
