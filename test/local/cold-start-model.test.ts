import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AssemblyFunction } from '../../local/assembly/cloud-assembly';
import {
  ARCHITECTURES,
  type ColdStartModel,
  coldStartBlock,
  coldStartModel,
  coldStartModelLine,
  modeledRemainderMs,
  PUBLISHED_INITS,
} from '../../local/host/cold-start-model';
import { ExecutionEnvironment } from '../../local/host/execution-environment';
import { FunctionPool } from '../../local/host/function-pool';
import { modelParameters } from '../../local/network/model-parameters';

const dir = mkdtempSync(join(tmpdir(), 'lab-cold-start-'));
writeFileSync(
  join(dir, 'index.mjs'),
  'export const handler = async () => ({ statusCode: 200, body: String(process.pid) });\n',
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fn = (over: Partial<AssemblyFunction> = {}): AssemblyFunction => ({
  stackName: 'Test',
  logicalId: 'Empty',
  name: 'empty',
  assetDir: dir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  architecture: 'arm64',
  memorySize: 256,
  timeoutSeconds: 10,
  environment: {},
  provisionedConcurrency: 0,
  ...over,
});

const MODEL = coldStartModel('nodejs24.x', 'arm64');
const PUBLISHED = MODEL.published?.initMs ?? Number.NaN;
/**
 * A figure above any local runtime start on a loaded test machine, so the wait is always there
 * to see: the real ones can fall below a loaded host's own Node start, which then waits nothing.
 */
const SLOW_MS = 500;
const SLOW: ColdStartModel = {
  runtime: 'test',
  architecture: 'arm64',
  published: { ...(MODEL.published as NonNullable<ColdStartModel['published']>), initMs: SLOW_MS },
};
const initOf = (line: string | undefined) => Number(/Init Duration: ([0-9.]+) ms/.exec(line ?? '')?.[1]);

describe('the cold-start model’s figures', () => {
  it('has a published figure with its sources for every runtime the lab and the seed articles ran, on both architectures', () => {
    for (const runtime of ['nodejs24.x', 'nodejs14.x', 'nodejs12.x'])
      for (const architecture of ARCHITECTURES)
        expect(coldStartModel(runtime, architecture).published, `${runtime} ${architecture}`).toBeDefined();
    for (const p of PUBLISHED_INITS) {
      expect(p.initMs, p.runtime).toBeGreaterThan(0);
      expect(p.year).toBeGreaterThanOrEqual(2019);
      expect(p.measured).toContain(`${p.initMs} ms`);
      expect(p.sources.length, `${p.runtime} ${p.architecture}`).toBeGreaterThan(0);
      for (const url of p.sources) expect(url).toMatch(/^https:\/\/\S+\.json$/);
    }
    const keys = PUBLISHED_INITS.map((p) => `${p.runtime} ${p.architecture}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('adds nothing where no figure is published, and says so', () => {
    const unknown = coldStartModel('nodejs10.x', 'x86_64');
    expect(unknown.published).toBeUndefined();
    expect(modeledRemainderMs(unknown, 5)).toBe(0);
    expect(coldStartModelLine([unknown])).toContain('nodejs10.x x86_64: no published figure, not modeled');
    // A template without Architectures runs on Lambda's default, x86_64.
    expect(coldStartModel('nodejs24.x').architecture).toBe('x86_64');
  });

  it('waits the published init less the local runtime start, never below 0', () => {
    expect(modeledRemainderMs(MODEL, 30)).toBeCloseTo(PUBLISHED - 30, 6);
    expect(modeledRemainderMs(MODEL, PUBLISHED + 50)).toBe(0);
    expect(modeledRemainderMs(undefined, 30)).toBe(0);
  });

  it('is a held-out model parameter: each figure with its sources, fitted to no seed figure', () => {
    const rows = modelParameters().filter((p) => p.parameter.startsWith('cold start:'));
    expect(rows).toHaveLength(PUBLISHED_INITS.length + 1);
    for (const r of rows) {
      expect(r.fittedTo, r.parameter).toBeNull();
      expect(r.sources.length, r.parameter).toBeGreaterThan(0);
    }
    expect(rows.find((r) => r.parameter.endsWith('nodejs24.x arm64'))?.value).toBe(`${PUBLISHED} ms (2026)`);
  });

  it('is named in the lab block: on with its figures and sources, or off', () => {
    const on = coldStartBlock([MODEL, MODEL]);
    expect(on.coldStartModel).toContain(`nodejs24.x arm64 ${PUBLISHED} ms`);
    expect(on.coldStart).toMatchObject({
      modeled: true,
      figures: [
        {
          runtime: 'nodejs24.x',
          architecture: 'arm64',
          publishedInitMs: PUBLISHED,
          sources: MODEL.published?.sources,
        },
      ],
    });
    const off = coldStartBlock(undefined);
    expect(off.coldStart).toMatchObject({ modeled: false });
    expect(off.coldStartModel).toContain('not modeled');
  });
});

describe('a cold start under the model', () => {
  const start = (coldStart?: ColdStartModel) =>
    ExecutionEnvironment.start({
      fn: fn(),
      env: {},
      initType: 'on-demand',
      coldStart,
      onLog: () => {},
      onExit: () => {},
    });

  it('reports the published init for an empty handler, the local runtime start counted in it; off adds nothing', async () => {
    const real = await start(MODEL);
    const on = await start(SLOW);
    const off = await start(undefined);
    try {
      // The modeled part tops the local runtime start up to the published figure, so the sum is
      // the published init plus the bundle's own load.
      for (const [env, published] of [
        [real, PUBLISHED],
        [on, SLOW_MS],
      ] as const) {
        expect(env.runtimeStartMs).toBeGreaterThan(0);
        expect(env.modeledInitMs).toBeCloseTo(Math.max(0, published - env.runtimeStartMs), 6);
        expect(env.initMs).toBeGreaterThanOrEqual(published);
      }
      expect(on.modeledInitMs).toBeGreaterThan(0);
      expect(off.modeledInitMs).toBe(0);
    } finally {
      await Promise.all([real.stop(), on.stop(), off.stop()]);
    }
  });

  it('is waited by the client of a cold invocation and in its REPORT’s Init Duration; a warm one has neither', async () => {
    const lines: string[] = [];
    const pool = new FunctionPool({
      fn: fn(),
      env: {},
      maxEnvironments: 1,
      coldStart: SLOW,
      log: (l) => lines.push(l),
    });
    try {
      const t0 = performance.now();
      const cold = await pool.invoke({});
      const coldMs = performance.now() - t0;
      const warm = await pool.invoke({});
      expect(cold.ok && warm.ok).toBe(true);
      const reports = lines.filter((l) => l.startsWith('REPORT'));
      expect(reports).toHaveLength(2);
      const init = initOf(reports[0]);
      expect(init).toBeGreaterThanOrEqual(SLOW_MS);
      // The client waited at least what the REPORT line says init took.
      expect(coldMs).toBeGreaterThanOrEqual(init - 1);
      expect(reports[1]).not.toContain('Init Duration');
      expect(pool.snapshot().initMs).toEqual([init].map((ms) => expect.closeTo(ms, 1)));
    } finally {
      await pool.stop();
    }
  });

  it('is paid by a provisioned environment at provisioning, not by its first request', async () => {
    const lines: string[] = [];
    const pool = new FunctionPool({
      fn: fn({ provisionedConcurrency: 1 }),
      env: {},
      maxEnvironments: 1,
      coldStart: SLOW,
      log: (l) => lines.push(l),
    });
    try {
      const t0 = performance.now();
      await pool.start();
      const startMs = performance.now() - t0;
      const init = initOf(lines.find((l) => l.startsWith('INIT_REPORT')));
      expect(init).toBeGreaterThanOrEqual(SLOW_MS);
      expect(startMs).toBeGreaterThanOrEqual(init - 1);
      const r = await pool.invoke({});
      expect(r.ok).toBe(true);
      // The request met the environment started at provisioning: no start, so no wait, and no Init Duration.
      expect(pool.snapshot()).toMatchObject({ started: 1, coldStarts: 0 });
      expect(lines.find((l) => l.startsWith('REPORT'))).not.toContain('Init Duration');
    } finally {
      await pool.stop();
    }
  });
});
