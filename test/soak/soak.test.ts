import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArtillery } from '../../loadtest/artillery-runner';
import { localSigningEnv, type RunningLab, startLab } from '../../local/lab';
import { readArtilleryReport, summarizeRun } from '../../runs/results';
import { rawRequest } from '../support/lab-http';

/**
 * A rate the lab sustains on a 2-core machine (`npm run bench -- --max-rate` prints the
 * highest); LAB_SOAK_RATE overrides it for a bigger or busier machine.
 */
const RATE = Number(process.env.LAB_SOAK_RATE ?? 300);
const DURATION_S = 60;
const BASE = '/dynamodb/keepalive-on/person';

describe(`soak: ${DURATION_S} s at ${RATE} creates/s on the local lab`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'lab-soak-'));
  let lab: RunningLab;
  beforeAll(async () => {
    // The soak checks the host and the engine under sustained load, not Lambda's CPU model
    // (test/local/memory-model.test.ts does): at the default 512 MB each environment would get
    // 0.29 of a core, and 300 creates/s would need more environments than two cores can run.
    lab = await startLab({ port: 0, cgroups: false });
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request without error, and every create answered 201 is readable afterwards', async () => {
    const govIds = join(dir, 'govids.csv');
    const outJson = join(dir, 'soak.json');
    const result = await runArtillery({
      operation: 'create',
      labTarget: 'dynamodb',
      target: lab.url,
      basePath: '/dynamodb/keepalive-on',
      durationS: DURATION_S,
      ratePerS: RATE,
      outJson,
      env: {
        ...localSigningEnv(),
        LAB_TIMINGS_FILE: join(dir, 'timings.jsonl'),
        LAB_GOVIDS_FILE: govIds,
      },
    });
    expect(result.exitCode).toBe(0);
    const run = summarizeRun(readArtilleryReport(outJson));
    expect(run.errors, JSON.stringify(run.codes)).toBe(0);
    // Artillery's arrivals can round one request either way at the phase edges.
    expect(Math.abs(run.requests - RATE * DURATION_S)).toBeLessThanOrEqual(RATE);
    const created = readFileSync(govIds, 'utf8').split('\n').filter(Boolean);
    expect(created.length).toBe(run.codes['201']);

    // Read back every one through the API, a few at a time.
    const missing: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < created.length) {
          const id = created[next++];
          const r = await rawRequest(lab, 'GET', `${BASE}/${id}`);
          if (r.status !== 200 || (r.json?.person as { GovId?: string })?.GovId !== id)
            missing.push(`${id}:${r.status}`);
        }
      }),
    );
    expect(missing).toEqual([]);
    console.log(
      `soak: ${run.requests} creates in ${DURATION_S} s at ${RATE}/s, ${run.errors} errors, p50 ${run.latencyMs?.p50} ms, p99 ${run.latencyMs?.p99} ms; ${created.length}/${created.length} read back`,
    );
  }, 300_000);
});
