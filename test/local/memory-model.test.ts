/**
 * Memory is CPU locally: each environment runs in a cgroup of its own with Lambda's CPU share
 * for its memory (memory / 1,769 MB of a core, CFS quota over 20 ms), a memory ceiling whose
 * breach kills it as Lambda's does, Lambda's V8 heap flags, and Max Memory Used measured.
 * This machine has cgroups: a test that finds none fails with the reason, it does not skip.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AssemblyFunction } from '../../local/assembly/cloud-assembly';
import { type CgroupTree, openCgroups } from '../../local/host/cgroups';
import { FREEZE_AFTER_MS } from '../../local/host/execution-environment';
import { FunctionPool, type Invocation } from '../../local/host/function-pool';
import {
  CFS_PERIOD_US,
  cpuLimit,
  heapFlags,
  initCpuLimit,
  invokeCpuLimit,
  MB_PER_VCPU,
} from '../../local/host/lambda-memory';
import { type ApiServer, compileRoute, startApiServer } from '../../local/server/api-gateway';
import { LAB_TEST_CONTEXT } from '../support/lab-test-context';
import { until } from '../support/until';

const BUNDLE = `
import { writeFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
// Proof that a stop's SIGTERM reached the process (a frozen one takes no signal until thawed).
if (process.env.MARK_TERM) process.on('SIGTERM', () => { writeFileSync(process.env.MARK_TERM, 'term'); process.exit(0); });
const held = [];
let lastTick = 0;
let longestSilence = 0;
let ticks = 0;
let ticker;
export const handler = async (event) => {
  const body = event.body ? JSON.parse(event.body) : {};
  if (body.tick) {
    // Work left running after the response: a frozen sandbox does none of it until the next
    // call, so its 20 ms ticks stop for as long as it stays frozen.
    const seen = lastTick === 0 ? 0 : Math.max(longestSilence, Date.now() - lastTick);
    const ticked = ticks;
    clearInterval(ticker);
    lastTick = Date.now();
    longestSilence = 0;
    ticks = 0;
    ticker = setInterval(() => {
      const now = Date.now();
      longestSilence = Math.max(longestSilence, now - lastTick);
      lastTick = now;
      ticks += 1;
    }, 20);
    ticker.unref();
    return { statusCode: 200, body: JSON.stringify({ longestSilenceMs: seen, ticks: ticked }) };
  }
  let spin = 0;
  if (body.spinIterations) {
    // CPU-bound and deterministic: the same work at every memory size.
    let x = 0;
    for (let i = 0; i < body.spinIterations; i++) x = (x * 31 + i) % 1000003;
    spin = x;
  }
  if (body.holdMb) {
    // Touched pages, outside the V8 heap: the cgroup sees every byte.
    for (let i = 0; i < body.holdMb; i++) held.push(Buffer.alloc(1024 * 1024, 1));
  }
  return { statusCode: 200, body: JSON.stringify({
    pid: process.pid, spin, execArgv: process.execArgv,
    heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1048576),
    memoryEnv: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
  }) };
};
`;
const dir = mkdtempSync(join(tmpdir(), 'lab-memory-'));
writeFileSync(join(dir, 'index.mjs'), BUNDLE);

const fn = (memorySize: number): AssemblyFunction => ({
  stackName: 'Test',
  logicalId: 'Fn',
  name: `memory-fn-${memorySize}`,
  assetDir: dir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  memorySize,
  timeoutSeconds: 60,
  environment: {},
  provisionedConcurrency: 0,
});

let tree: CgroupTree | undefined;
let hostCores = 1;
/** The lab's cgroup tree, opened once; no cgroups here fails the test with the reason. */
async function cgroups(): Promise<{ tree: CgroupTree; hostCores: number }> {
  if (!tree) {
    const opened = await openCgroups();
    expect(opened.model.reason, 'this machine has writable cgroups').toBeUndefined();
    if (!opened.tree) throw new Error(`no cgroups: ${opened.model.reason}`);
    tree = opened.tree;
    hostCores = opened.model.hostCores;
  }
  return { tree, hostCores };
}

const pools: FunctionPool[] = [];
async function pool(memorySize: number, env: Record<string, string> = {}, freeze = false) {
  const lines: string[] = [];
  const p = new FunctionPool({
    fn: fn(memorySize),
    env,
    maxEnvironments: 2,
    log: (l) => lines.push(l),
    cgroups: { ...(await cgroups()), freeze },
  });
  pools.push(p);
  return { p, lines };
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});
afterAll(async () => {
  await tree?.remove();
  rmSync(dir, { recursive: true, force: true });
});

const event = (body: unknown = {}) => ({ body: JSON.stringify(body), pathParameters: null });
interface Body {
  pid: number;
  execArgv: string[];
  heapLimitMb: number;
  memoryEnv: string;
}
function bodyOf(r: Invocation): Body {
  if (!r.ok) throw new Error(`invocation failed: ${r.message}`);
  return JSON.parse((r.response as { body: string }).body) as Body;
}
const reports = (lines: string[]) => lines.filter((l) => l.startsWith('REPORT '));
const field = (report: string, name: string) => new RegExp(`${name}: ([\\d.]+)`).exec(report)?.[1];

describe('the figures (local/host/lambda-memory.ts)', () => {
  it('gives memory / 1,769 MB of a core as a quota over 20 ms, capped by the host', () => {
    expect(invokeCpuLimit(128, 2)).toEqual({ quotaUs: 1447, periodUs: 20_000, vcpus: 1447 / 20_000 });
    expect(invokeCpuLimit(MB_PER_VCPU, 2).quotaUs).toBe(CFS_PERIOD_US);
    expect(invokeCpuLimit(3538, 4).quotaUs).toBe(2 * CFS_PERIOD_US);
    expect(invokeCpuLimit(10_240, 2).quotaUs).toBe(2 * CFS_PERIOD_US);
    expect(invokeCpuLimit(10_240, 64).vcpus).toBeCloseTo(10_240 / MB_PER_VCPU, 3);
    // The kernel's floor is 1 ms; Lambda's smallest share is above it.
    expect(cpuLimit(0.01, 2).quotaUs).toBe(1000);
  });

  it('bursts an on-demand init to a full vCPU, never a provisioned one', () => {
    expect(initCpuLimit(128, 2, 'on-demand').quotaUs).toBe(CFS_PERIOD_US);
    expect(initCpuLimit(128, 2, 'provisioned-concurrency').quotaUs).toBe(1447);
    expect(initCpuLimit(3538, 2, 'on-demand').quotaUs).toBe(2 * CFS_PERIOD_US);
  });

  it("sizes V8's heap as Lambda's bootstrap does, and leaves it alone when NODE_OPTIONS sets it", () => {
    expect(heapFlags(128)).toEqual(['--max-semi-space-size=6', '--max-old-space-size=116']);
    expect(heapFlags(1769)).toEqual(['--max-semi-space-size=88', '--max-old-space-size=1593']);
    expect(heapFlags(1024, '--max-old-space-size=300')).toEqual([]);
    expect(heapFlags(1024, '--enable-source-maps --max-semi-space-size=4')).toEqual([]);
    expect(heapFlags(1024, '--enable-source-maps')).toHaveLength(2);
  });
});

describe('environments under cgroups', () => {
  it('runs a CPU-bound handler at 128 MB about 1769/128 times slower than at 1,769 MB', async () => {
    // ~100 ms of work at full speed; at 128 MB it is ~1.4 s.
    const work = event({ spinIterations: 20_000_000 });
    const durations = async (memory: number) => {
      const { p, lines } = await pool(memory);
      await p.invoke(event()); // the cold start: its init has the burst, not the share
      for (let i = 0; i < 3; i++) bodyOf(await p.invoke(work));
      return reports(lines)
        .slice(1)
        .map((r) => Number(field(r, 'Duration')));
    };
    const small = Math.min(...(await durations(128)));
    const full = Math.min(...(await durations(1769)));
    // 13.8x in theory; a loaded 2-core machine slows the full-speed runs too.
    expect(small / full).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it("counts the CPU quota's throttling: a CPU-bound handler at 128 MB is throttled, and the snapshot says so", async () => {
    const { p } = await pool(128);
    bodyOf(await p.invoke(event()));
    const before = p.snapshot().cpuThrottling;
    expect(before).toBeDefined();
    // ~25 ms of work at full speed: at 128 MB (1.45 ms of CPU per 20 ms period) it spans many periods.
    bodyOf(await p.invoke(event({ spinIterations: 5_000_000 })));
    const after = p.snapshot().cpuThrottling;
    if (!before || !after) throw new Error('no cpu.stat');
    expect(after.throttled - before.throttled).toBeGreaterThan(0);
    expect(after.throttledMs - before.throttledMs).toBeGreaterThan(0);
    expect(after.periods).toBeGreaterThanOrEqual(after.throttled);
  }, 60_000);

  it("passes Lambda's heap flags to node, unless NODE_OPTIONS sets its own", async () => {
    const { p } = await pool(128);
    const b = bodyOf(await p.invoke(event()));
    expect(b.execArgv).toEqual(['--max-semi-space-size=6', '--max-old-space-size=116']);
    expect(b.memoryEnv).toBe('128');
    const own = await pool(256, { NODE_OPTIONS: '--max-old-space-size=64' });
    const o = bodyOf(await own.p.invoke(event()));
    expect(o.execArgv).toEqual([]);
    // V8's limit follows NODE_OPTIONS (old space 64 MB plus its young generation), not 256 MB's 231.
    expect(o.heapLimitMb).toBeLessThan(120);
  }, 60_000);

  it("reports the environment's measured peak as Max Memory Used, not the setting", async () => {
    const { p, lines } = await pool(1769);
    bodyOf(await p.invoke(event()));
    bodyOf(await p.invoke(event({ holdMb: 80 })));
    const [first, second] = reports(lines).map((r) => Number(field(r, 'Max Memory Used')));
    expect(reports(lines)[0]).toContain('Memory Size: 1769 MB');
    expect(first).toBeGreaterThan(10);
    expect(first).toBeLessThan(1769);
    // The 80 MB it now holds are in the peak.
    expect(second).toBeGreaterThanOrEqual(first + 70);
  }, 60_000);

  it('kills an environment that allocates past its memory as Lambda does: 502, Runtime.OutOfMemory, a fresh environment next', async () => {
    const { p, lines } = await pool(128);
    let server: ApiServer | undefined;
    try {
      server = await startApiServer({
        routes: [compileRoute({ method: 'POST', path: '/r', function: fn(128) }, p)],
        stage: 'lab',
        host: '127.0.0.1',
        port: 0,
        log: () => {},
      });
      const post = (body: unknown) =>
        fetch(`${server?.url}/r`, {
          method: 'POST',
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      const before = await post({});
      expect(before.status).toBe(200);
      const { pid } = JSON.parse(await before.text()) as Body;
      const dead = await post({ holdMb: 400 });
      expect(dead.status).toBe(502);
      expect(await dead.json()).toEqual({ message: 'Internal server error' });
      const report = reports(lines).at(-1) ?? '';
      expect(report).toMatch(/\tStatus: error\tError Type: Runtime\.OutOfMemory\t$/);
      expect(Number(field(report, 'Max Memory Used'))).toBeGreaterThanOrEqual(120);
      expect(lines.some((l) => /Error: Runtime exited with error: signal: killed$/.test(l))).toBe(true);
      const after = await post({});
      expect(after.status).toBe(200);
      const fresh = JSON.parse(await after.text()) as Body;
      expect(fresh.pid).not.toBe(pid);
      // An answered invocation's REPORT follows its answer by a timer's turn (FunctionPool.invoke).
      await until(() => reports(lines).length > 2);
      expect(reports(lines).at(-1)).toContain('Init Duration');
    } finally {
      await server?.close();
    }
  }, 90_000);

  it('freezes an environment between invocations, as Lambda freezes a sandbox after its response', async () => {
    const ticking = async (freeze: boolean) => {
      const { p } = await pool(1769, {}, freeze);
      const first = await p.invoke(event({ tick: true }));
      expect(first.ok).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
      const r = await p.invoke(event({ tick: true }));
      return JSON.parse((r.ok ? (r.response as { body: string }).body : '{}') || '{}') as {
        longestSilenceMs: number;
        ticks: number;
      };
    };
    // Running on, the 20 ms ticks keep coming through the 1.5 s gap (~75; a loaded machine
    // coalesces some). Frozen, they stop from the freeze (1 ms after the response) to the next
    // call's thaw: the longest stretch without one is most of the gap. The 750 ms line leaves a
    // freeze 4x the ~180 ms late that the fast tier's busiest runs showed.
    expect((await ticking(false)).ticks).toBeGreaterThanOrEqual(10);
    expect((await ticking(true)).longestSilenceMs).toBeGreaterThanOrEqual(750);
  }, 60_000);

  it('freezes and thaws in the order asked, off the event loop: every call is answered and a stop reaches the frozen environment', async () => {
    const marker = join(dir, 'sigterm-seen');
    const { p } = await pool(1769, { MARK_TERM: marker }, true);
    const pids = new Set<number>();
    // Each call thaws what the previous one's freeze froze, often while that freeze is still written.
    for (let i = 0; i < 40; i++) pids.add(bodyOf(await p.invoke(event())).pid);
    expect(pids.size).toBe(1);
    const burst = await Promise.all(Array.from({ length: 10 }, () => p.invoke(event())));
    expect(burst.filter((r) => !r.ok)).toEqual([]);
    // Idle, hence frozen, when the stop comes: its thaw must land before the SIGTERM.
    await new Promise((r) => setTimeout(r, 200));
    await p.stop();
    expect(readFileSync(marker, 'utf8')).toBe('term');
  }, 60_000);

  it('thaws a frozen environment before each invocation is sent and records each thaw; a thaw asked while a freeze is in flight lands after it', async () => {
    const { p } = await pool(1769, {}, true);
    // The cold start's thaw follows the freeze asked at ready, still in flight: not timed.
    const { pid } = bodyOf(await p.invoke(event()));
    expect(p.snapshot().thawMs).toHaveLength(0);
    // Frozen after each response: every one of these invocations meets a frozen environment.
    for (let i = 0; i < 3; i++) {
      // A timer longer than FREEZE_AFTER_MS, so the freeze is asked; then every freeze and thaw
      // asked has landed (each waits for a thread of a busy host), not a guess at how long.
      await new Promise((r) => setTimeout(r, 2 * FREEZE_AFTER_MS + 10));
      await p.freezerSettled();
      // The kernel stops the environment's threads after the write (v1 says FREEZING till then).
      await until(() => frozenNow(pid));
      expect((await p.invoke(event())).ok).toBe(true);
    }
    const thaws = p.snapshot().thawMs;
    expect(thaws).toHaveLength(3);
    for (const ms of thaws) expect(ms).toBeGreaterThanOrEqual(0);

    // The cgroup alone: a freeze still written by the thread pool, then a thaw for an invocation.
    const { tree: t } = await cgroups();
    const cg = t.create('order');
    try {
      const state = cg.procsFiles
        .map((f) => dirname(f))
        .flatMap((d) => ['freezer.state', 'cgroup.freeze'].map((f) => join(d, f)))
        .find((f) => existsSync(f));
      expect(state, 'a freezer file').toBeDefined();
      const freezing = cg.setFrozen(true);
      // Behind the freeze, not before it: a synchronous write now would be overtaken.
      expect(cg.thawForInvoke()).toBeUndefined();
      await freezing;
      await cg.setFrozen(false);
      expect(readFileSync(state as string, 'utf8').trim()).toMatch(/^(THAWED|0)$/);
      // Nothing in flight: written at once, and timed.
      await cg.setFrozen(true);
      expect(cg.thawForInvoke()).toBeGreaterThanOrEqual(0);
      expect(readFileSync(state as string, 'utf8').trim()).toMatch(/^(THAWED|0)$/);
    } finally {
      await t.release(cg);
    }
  }, 60_000);

  it('replaces the environments when the memory setting changes, with no re-synth', async () => {
    const { p, lines } = await pool(256);
    const a = bodyOf(await p.invoke(event()));
    await p.setMemory(1024);
    expect(p.memoryMb).toBe(1024);
    const b = bodyOf(await p.invoke(event()));
    expect(b.pid).not.toBe(a.pid);
    expect(b.memoryEnv).toBe('1024');
    expect(b.execArgv).toContain('--max-old-space-size=922');
    expect(reports(lines).map((r) => field(r, 'Memory Size'))).toEqual(['256', '1024']);
    await expect(p.setMemory(64)).rejects.toThrow(/128 to 10240/);
    expect(p.memoryMb).toBe(1024);
  }, 60_000);

  it('lets a frozen environment die when the lab exits without its stop (a second Ctrl-C)', async () => {
    // A lab process that freezes a child in its cgroup, SIGKILLs it as the emergency path does,
    // and exits: the tree's exit hook must thaw it, or the child stays in D state until the
    // next lab's start.
    const script = `
      const { spawn } = require('node:child_process');
      import(${JSON.stringify(join(process.cwd(), 'local/host/cgroups.ts'))}).then(async ({ openCgroups }) => {
        const { tree } = await openCgroups();
        const cg = tree.create('frozen');
        const child = spawn('sleep', ['60'], { stdio: 'ignore', detached: true });
        cg.addProcess(child.pid);
        cg.freeze();
        process.stdout.write(String(child.pid));
        process.kill(child.pid, 'SIGKILL');
        process.exit(0);
      });`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    const pid = Number(r.stdout.trim());
    expect(pid, r.stderr).toBeGreaterThan(0);
    // Dead (or a zombie reaped by init) once thawed; a frozen one would still be in state D.
    let state = '';
    for (let i = 0; i < 50; i++) {
      state = existsSync(`/proc/${pid}/stat`)
        ? (readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] ?? '')
        : '';
      if (state === '' || state === 'Z') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(['', 'Z']).toContain(state);
    // The tree it left is a dead lab's: the next start removes it.
    const again = await openCgroups({ ownerPid: process.pid + 2_000_000 });
    await again.tree?.remove();
  }, 60_000);

  it('leaves no cgroup behind, and a later start removes what a dead lab left', async () => {
    const { p } = await pool(256);
    bodyOf(await p.invoke(event()));
    await p.stop();
    // A dead lab's tree: a pid that has exited owns it.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const orphan = await openCgroups({ ownerPid: deadPid });
    if (!orphan.tree) throw new Error(`no cgroups: ${orphan.model.reason}`);
    orphan.tree.create('left-behind');
    const dirs = () =>
      ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/memory', '/sys/fs/cgroup']
        .filter(existsSync)
        .flatMap((base) => findParents(base));
    expect(dirs().some((d) => d.includes(`latency-lab-${deadPid}-`))).toBe(true);
    const again = await openCgroups({ ownerPid: process.pid + 1_000_000 });
    expect(again.removedStale).toBeGreaterThanOrEqual(1);
    expect(dirs().some((d) => d.includes(`latency-lab-${deadPid}-`))).toBe(false);
    await again.tree?.remove();
    await (await cgroups()).tree.remove();
    tree = undefined;
    expect(dirs().filter((d) => d.includes(`latency-lab-${process.pid}-`))).toEqual([]);
  }, 60_000);
});

/** Whether the kernel has stopped every process of pid's cgroup (v1's freezer, or v2's). */
function frozenNow(pid: number): boolean {
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((l) => /^\d+:freezer:/.test(l));
  if (v1) {
    const path = v1.split(':')[2];
    return readFileSync(`/sys/fs/cgroup/freezer${path}/freezer.state`, 'utf8').trim() === 'FROZEN';
  }
  const v2 = lines.find((l) => l.startsWith('0::'))?.slice(3);
  return /^frozen 1$/m.test(readFileSync(`/sys/fs/cgroup${v2}/cgroup.events`, 'utf8'));
}

/** Every latency-lab-* directory up to three levels under base. */
function findParents(base: string, depth = 3): string[] {
  let out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(base, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return out;
  }
  for (const name of entries) {
    const d = join(base, name);
    if (name.startsWith('latency-lab-')) out.push(d);
    else if (depth > 0) out = out.concat(findParents(d, depth - 1));
  }
  return out;
}

describe('the lab', () => {
  it('models memory with cgroups, changes a function memory without a re-synth, and leaves no cgroup at stop', async () => {
    const { startLab } = await import('../../local/lab');
    const log: string[] = [];
    const fnLines: string[] = [];
    // The assembly test/support/global-setup.ts synthesized once for the run.
    const lab = await startLab({
      port: 0,
      context: LAB_TEST_CONTEXT,
      memoryMb: 256,
      log: (l) => log.push(l),
      onFunctionLog: (fn, l) => fnLines.push(`[${fn}] ${l}`),
    });
    try {
      expect(lab.memoryModel.reason, 'this machine has writable cgroups').toBeUndefined();
      expect(lab.memoryModel.modeled).toBe(true);
      expect(log.filter((l) => l.startsWith('Memory is CPU: cgroup-v'))).toHaveLength(1);
      const names = Object.keys(lab.memory());
      expect(new Set(Object.values(lab.memory()))).toEqual(new Set([256]));
      const get = names.find((n) => n.startsWith('dynamodb-get')) as string;
      // Bad input changes nothing.
      await expect(lab.setMemory(64)).rejects.toThrow(/128 to 10240/);
      await expect(lab.setMemory(512, 'no-such-function')).rejects.toThrow(/no function no-such-function/);
      expect(new Set(Object.values(lab.memory()))).toEqual(new Set([256]));
      await lab.setMemory(1769, get);
      expect(lab.memory()[get]).toBe(1769);
      expect(
        Object.entries(lab.memory())
          .filter(([n]) => n !== get)
          .every(([, m]) => m === 256),
      ).toBe(true);
      const r = await lab.pools.get(get)?.invoke({ httpMethod: 'GET', pathParameters: { govId: 'AB-1' } });
      expect(r?.ok).toBe(true);
      const report = fnLines.find((l) => l.startsWith(`[${get}] REPORT`));
      expect(report).toContain('Memory Size: 1769 MB');
      // The template's runtime and architecture choose the cold-start model's figure, and the cold
      // invocation's Init Duration holds at least it.
      const published = lab.coldStart?.find((m) => m.runtime === 'nodejs24.x' && m.architecture === 'arm64')
        ?.published?.initMs;
      expect(published).toBeGreaterThan(0);
      expect(log.filter((l) => l.startsWith('cold start: Init Duration is at least'))).toHaveLength(1);
      expect(Number(/Init Duration: ([0-9.]+) ms/.exec(report ?? '')?.[1])).toBeGreaterThanOrEqual(
        published ?? 0,
      );
    } finally {
      await lab.stop();
    }
    const left = ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/memory', '/sys/fs/cgroup']
      .filter(existsSync)
      .flatMap((base) => findParents(base))
      .filter((d) => d.includes(`latency-lab-${process.pid}-`));
    expect(left).toEqual([]);
  }, 180_000);

  it('says in one line when it does not model memory, or cold starts', async () => {
    const { startLab } = await import('../../local/lab');
    const log: string[] = [];
    const lab = await startLab({
      port: 0,
      context: LAB_TEST_CONTEXT,
      cgroups: false,
      coldStartModel: false,
      log: (l) => log.push(l),
    });
    try {
      expect(lab.coldStart).toBeUndefined();
      expect(log).toContain('cold start: Lambda’s sandbox and runtime start not modeled (turned off)');
      expect(lab.memoryModel).toMatchObject({ modeled: false, mechanism: 'none' });
      expect(log.filter((l) => l.startsWith('Memory not modeled: cgroups turned off'))).toHaveLength(1);
      expect(log.find((l) => l.startsWith('Memory not modeled'))).toContain('"memory not modeled"');
    } finally {
      await lab.stop();
    }
  }, 180_000);
});
