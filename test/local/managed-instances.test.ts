/**
 * Lambda Managed Instances in the local host (local/host/managed-instances-model.ts): several
 * invocations at once in one environment's process, the timing block's concurrency counted by
 * the handlers' own code, a throttle for what no environment has a slot for, the scaler's pace,
 * and the environment's vCPUs and memory in its cgroup.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import type { AssemblyFunction } from '../../local/assembly/cloud-assembly';
import { computeOptions, UsageError } from '../../local/cli/options';
import { type CgroupTree, openCgroups } from '../../local/host/cgroups';
import { ExecutionEnvironment } from '../../local/host/execution-environment';
import { FunctionPool, type Invocation } from '../../local/host/function-pool';
import { CFS_PERIOD_US } from '../../local/host/lambda-memory';
import {
  environmentMemoryMb,
  type ManagedInstancesSettings,
  resolveManagedInstances,
  SCALE_WINDOW_MS,
  ScalingGate,
} from '../../local/host/managed-instances-model';
import { compileRoute, startApiServer } from '../../local/server/api-gateway';
import { until } from '../support/until';

// The handlers' own counter (lambda/shared/timing-meter.ts), bundled as the lab's bundles are.
const ENTRY = `
import { appendFileSync, existsSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { enterInvocation } from './lambda/shared/timing-meter';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const handler = async (event) => {
  const entered = enterInvocation();
  const body = event.body ? JSON.parse(event.body) : {};
  try {
    // Each held invocation says it has entered, so the test releases them only once all are in.
    if (body.hold) appendFileSync(body.hold + '.entered', 'x');
    for (let i = 0; body.hold && !existsSync(body.hold) && i < 500; i++) await sleep(20);
    return { statusCode: 200, body: JSON.stringify({ pid: process.pid, thread: threadId, concurrency: entered.concurrency }) };
  } finally {
    entered.leave();
  }
};
`;

const dir = mkdtempSync(join(tmpdir(), 'lab-mi-'));
beforeAll(async () => {
  await build({
    stdin: { contents: ENTRY, resolveDir: PROJECT_ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: join(dir, 'index.mjs'),
    logLevel: 'silent',
  });
});
let tree: CgroupTree | undefined;
afterAll(async () => {
  await tree?.remove();
  rmSync(dir, { recursive: true, force: true });
});

const fn: AssemblyFunction = {
  stackName: 'Test',
  logicalId: 'Fn',
  name: 'mi-fn',
  assetDir: dir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  memorySize: 256,
  timeoutSeconds: 20,
  environment: {},
  provisionedConcurrency: 0,
};
const settings = (over: Partial<ManagedInstancesSettings> = {}): ManagedInstancesSettings => ({
  maxConcurrency: 4,
  vcpus: 1,
  memoryGiBPerVCpu: 2,
  minEnvironments: 1,
  source: 'options',
  ...over,
});

const pools: FunctionPool[] = [];
async function pool(
  mi: ManagedInstancesSettings,
  maxEnvironments = 5,
  over: Partial<AssemblyFunction> = {},
): Promise<FunctionPool> {
  const p = new FunctionPool({
    fn: { ...fn, ...over },
    env: {},
    maxEnvironments,
    log: () => {},
    managedInstances: mi,
  });
  pools.push(p);
  await p.start();
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.stop()));
});

const holdFile = () => join(dir, `release-${Math.random().toString(36).slice(2)}`);
/** How many held invocations have entered the handler. */
const entered = (hold: string) => (existsSync(`${hold}.entered`) ? statSync(`${hold}.entered`).size : 0);
const event = (body: unknown) => ({ body: JSON.stringify(body), pathParameters: null });
function bodyOf(r: Invocation): { pid: number; thread: number; concurrency: number } {
  if (!r.ok) throw new Error(`invocation failed: ${r.message}`);
  return JSON.parse((r.response as { body: string }).body);
}

describe('Managed Instances in the local host', () => {
  it('serves N invocations at once in one process; the timing block counts them up to N', async () => {
    const p = await pool(settings({ maxConcurrency: 4 }));
    const hold = holdFile();
    const running = Array.from({ length: 4 }, () => p.invoke(event({ hold })));
    await until(() => entered(hold) === 4);
    writeFileSync(hold, '');
    const bodies = (await Promise.all(running)).map(bodyOf);
    expect(new Set(bodies.map((b) => b.pid)).size).toBe(1);
    expect(bodies.map((b) => b.concurrency).sort()).toEqual([1, 2, 3, 4]);
    expect(p.snapshot().environments).toBe(1);
  });

  it('spreads an environment of 2 vCPUs over 2 worker threads of its one process, each counting its own', async () => {
    const p = await pool(settings({ maxConcurrency: 4, vcpus: 2 }));
    const hold = holdFile();
    const running = Array.from({ length: 4 }, () => p.invoke(event({ hold })));
    await until(() => entered(hold) === 4);
    writeFileSync(hold, '');
    const bodies = (await Promise.all(running)).map(bodyOf);
    expect(new Set(bodies.map((b) => b.pid)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.thread)).size).toBe(2);
    expect(bodies.map((b) => b.concurrency).sort()).toEqual([1, 1, 2, 2]);
  });

  it('throttles the N+1th at once, and the scaler has another environment ready for the next', async () => {
    const p = await pool(settings({ maxConcurrency: 2 }));
    const hold = holdFile();
    const running = [p.invoke(event({ hold })), p.invoke(event({ hold }))];
    await until(() => p.snapshot().maxInFlight === 2);
    const third = await p.invoke(event({}));
    expect(third.ok).toBe(false);
    expect(!third.ok && third.reason).toBe('throttled');
    expect(p.snapshot().throttled).toBe(1);
    // The full environment was the signal: a second one starts in the background.
    await until(() => p.snapshot().environments === 2);
    const fourth = bodyOf(await p.invoke(event({})));
    writeFileSync(hold, '');
    const first = bodyOf((await Promise.all(running))[0] as Invocation);
    expect(fourth.pid).not.toBe(first.pid);
    expect(fourth.concurrency).toBe(1);
  });

  it('times out one invocation alone: the environment and its other invocations go on', async () => {
    const p = await pool(settings({ maxConcurrency: 4 }), 5, { timeoutSeconds: 1 });
    const slow = p.invoke(event({ hold: holdFile() }));
    const quick = bodyOf(await p.invoke(event({})));
    const timedOut = await slow;
    expect(!timedOut.ok && timedOut.reason).toBe('timeout');
    const after = bodyOf(await p.invoke(event({})));
    expect(after.pid).toBe(quick.pid);
    // The timed-out code runs on in the environment, as the service leaves it running.
    expect(after.concurrency).toBe(2);
    expect(p.snapshot()).toMatchObject({ environments: 1, started: 1, crashes: 0 });
  });

  it('throttles a surge beyond the scaling pace with the API Gateway status of a Lambda throttle', async () => {
    const p = await pool(settings({ maxConcurrency: 2 }), 10);
    const server = await startApiServer({
      routes: [compileRoute({ method: 'POST', path: '/dynamodb/person', function: fn }, p)],
      stage: 'lab',
      host: '127.0.0.1',
      port: 0,
      log: () => {},
    });
    try {
      const hold = holdFile();
      const surge = Array.from({ length: 12 }, () =>
        fetch(`${server.url}/dynamodb/person`, { method: 'POST', body: JSON.stringify({ hold }) }),
      );
      // Every request is answered or held before the release: the throttled ones at once.
      await until(() => p.snapshot().throttled + p.snapshot().inFlight === 12);
      writeFileSync(hold, '');
      const answers = await Promise.all(surge);
      const statuses = answers.map((a) => a.status);
      const throttled = answers.filter((a) => a.status === 500);
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(4);
      expect(throttled.length).toBeGreaterThanOrEqual(8);
      expect(throttled[0]?.headers.get('x-amzn-errortype')).toBe('InternalServerErrorException');
      expect(await throttled[0]?.json()).toEqual({ message: 'Internal server error' });
      // From one environment the scaler may at most double within its window, however many wait
      // (the second may still be starting: its start is the scaler's, in the background).
      await until(() => p.snapshot().started >= 2);
      expect(p.snapshot().started).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('lets the environments at most double within the scaling window', () => {
    let now = 0;
    const gate = new ScalingGate(() => now);
    expect(gate.allow(1)).toBe(true);
    expect(gate.allow(2)).toBe(false);
    now = SCALE_WINDOW_MS;
    expect(gate.allow(2)).toBe(true);
    expect(gate.allow(3)).toBe(true);
    expect(gate.allow(4)).toBe(false);
  });

  it("prefers the template's capacity provider: vCPUs are its memory over memory per vCPU", () => {
    const fromTemplate = resolveManagedInstances(
      8192,
      { memoryGiBPerVCpu: 4 },
      { maxConcurrency: 3, vcpus: 7 },
    );
    expect(fromTemplate).toMatchObject({
      source: 'template',
      vcpus: 2,
      maxConcurrency: 128,
      memoryGiBPerVCpu: 4,
    });
    expect(environmentMemoryMb(fromTemplate)).toBe(8192);
    const fromOptions = resolveManagedInstances(512, undefined, {
      maxConcurrency: 3,
      vcpus: 2,
      memoryGiBPerVCpu: 8,
    });
    expect(fromOptions).toMatchObject({ source: 'options', vcpus: 2, maxConcurrency: 3 });
    expect(environmentMemoryMb(fromOptions)).toBe(16_384);
    expect(() => resolveManagedInstances(512, undefined, { memoryGiBPerVCpu: 1 })).toThrow(/memory per vCPU/);
  });

  it("runs an environment under its vCPUs' quota and memory per vCPU x vCPUs (cgroups)", async () => {
    const opened = await openCgroups();
    expect(opened.model.reason, 'this machine has writable cgroups').toBeUndefined();
    if (!opened.tree) throw new Error(`no cgroups: ${opened.model.reason}`);
    tree = opened.tree;
    const hostCores = opened.model.hostCores;
    const vcpus = Math.min(2, hostCores);
    const mi = settings({ vcpus });
    const env = await ExecutionEnvironment.start({
      fn,
      env: {},
      initType: 'on-demand',
      memoryMb: environmentMemoryMb(mi),
      cgroups: { tree, hostCores },
      managed: { maxConcurrency: mi.maxConcurrency, vcpus },
      onLog: () => {},
      onExit: () => {},
    });
    try {
      // From the start: no init burst, and not the standard share of the function's 256 MB.
      expect(env.limits()).toEqual({
        quotaUs: vcpus * CFS_PERIOD_US,
        periodUs: CFS_PERIOD_US,
        memoryBytes: vcpus * 2 * 1024 ** 3,
      });
      expect(existsSync(dir)).toBe(true);
    } finally {
      await env.stop();
    }
  });

  it('--compute managed-instances puts the settings into the synth context, and refuses what would do nothing', () => {
    expect(computeOptions({})).toEqual({ context: {} });
    expect(
      computeOptions({
        compute: 'managed-instances',
        'mi-vcpus': '2',
        'mi-memory-per-vcpu': '4',
        'mi-max-concurrency': '16',
        'mi-min-envs': '1',
      }),
    ).toEqual({
      compute: 'managed-instances',
      managedInstances: { minEnvironments: 1 },
      context: {
        compute: 'managed-instances',
        memorySize: '8192',
        managedInstancesMemoryGiBPerVCpu: '4',
        managedInstancesMaxConcurrency: '16',
      },
    });
    expect(computeOptions({ compute: 'managed-instances' }).context.memorySize).toBe('2048');
    expect(() => computeOptions({ 'mi-vcpus': '2' })).toThrow(UsageError);
    expect(() => computeOptions({ compute: 'lambda' })).toThrow(/--compute must be/);
    expect(() => computeOptions({ compute: 'managed-instances', 'mi-memory-per-vcpu': '3' })).toThrow(
      /2, 4 or 8/,
    );
    expect(() => computeOptions({ compute: 'managed-instances', memory: '1024' })).toThrow(/--memory/);
  });
});
