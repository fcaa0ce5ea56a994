import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEmptyHandler, initOverEmpty, median } from '../../bench/init-over-empty';
import type { AssemblyFunction } from '../../local/assembly/cloud-assembly';
import { defaultLambdaNode, ExecutionEnvironment } from '../../local/host/execution-environment';

const root = mkdtempSync(join(tmpdir(), 'lab-init-over-empty-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const INIT_WAIT_MS = 60;
const slowDir = mkdtempSync(join(root, 'slow-'));
// A bundle whose init costs a known 60 ms more than an empty one's.
writeFileSync(
  join(slowDir, 'index.mjs'),
  `await new Promise((r) => setTimeout(r, ${INIT_WAIT_MS}));\nexport const handler = async () => 'slow';`,
);

const fn: AssemblyFunction = {
  stackName: 'Test',
  logicalId: 'Slow',
  name: 'slow-init',
  assetDir: slowDir,
  handler: 'index.handler',
  runtime: 'nodejs24.x',
  memorySize: 256,
  timeoutSeconds: 10,
  environment: {},
  provisionedConcurrency: 0,
};

describe('init over an empty handler', () => {
  it('builds the empty handler as the lab bundles are built: one minified ESM file that serves', async () => {
    const dir = await buildEmptyHandler(join(root, 'empty'));
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(code.startsWith("import{createRequire as __cr}from'node:module';")).toBe(true);
    expect(code).toMatch(/export\{\w+ as handler\};\n$/);
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(2);
    const env = await ExecutionEnvironment.start({
      fn: { ...fn, assetDir: dir },
      env: {},
      initType: 'on-demand',
      onLog: () => {},
      onExit: () => {},
    });
    try {
      const out = await env.invoke('req-1', {}, 5_000);
      expect(out).toMatchObject({ kind: 'result', response: { statusCode: 200, body: '' } });
    } finally {
      await env.stop();
    }
  });

  it("reports a bundle's init as the empty handler's plus what the bundle adds", async () => {
    const emptyDir = await buildEmptyHandler(join(root, 'empty-2'));
    const [row] = await initOverEmpty([{ fn, env: {} }], { runs: 3, node: defaultLambdaNode(), emptyDir });
    expect(row.fn).toBe('slow-init');
    expect(row.initMs).toHaveLength(3);
    expect(row.emptyMs).toHaveLength(3);
    expect(row.overEmptyMs).toEqual(row.initMs.map((ms, i) => ms - row.emptyMs[i]));
    // The bundle's 60 ms timer is counted in every init of it: a lower bound, which a loaded
    // machine only makes longer. (The difference from the empty handler's init is not bounded
    // from below: each side carries its own start-up noise, and under load the empty handler's
    // init alone can take longer than the timer; the identity above checks the subtraction.)
    for (const ms of row.initMs) expect(ms).toBeGreaterThanOrEqual(INIT_WAIT_MS - 1);
    expect(row.p50.overEmpty).toBe(median(row.overEmptyMs));
    expect(row.p50.empty).toBeGreaterThan(0);
  });

  it('takes the nearest-rank median, negative differences included', () => {
    expect(median([3, -1, 2])).toBe(2);
    expect(median([-4, -2])).toBe(-4);
    expect(median([])).toBeNaN();
  });
});
