import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_DEADLINE_MS } from '../../lambda/shared/http-client';
import { FUNCTION_TIMEOUT } from '../../lib/constructs/perf-function';
import { type RunningLab, startLab } from '../../local/lab';
import { person, rawRequest } from '../support/lab-http';

const BASE = '/dynamodb/keepalive-on/person';

describe('the database engine killed mid-run (dynalite with --data)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-fault-'));
  let lab: RunningLab;
  beforeAll(async () => {
    lab = await startLab({ port: 0, dataDir });
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a clear 503 within the timeout, serves again soon after restart, and loses no acknowledged write', async () => {
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) {
      const id = `ACK-${i}`;
      const r = await rawRequest(lab, 'POST', BASE, JSON.stringify(person(id)));
      expect(r.status).toBe(201);
      acknowledged.push(id);
    }

    // SIGKILL: no clean shutdown, as when a database node dies.
    process.kill(lab.engine.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));

    const outage: { status: number; ms: number; error?: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      const r = await rawRequest(
        lab,
        i % 2 ? 'GET' : 'POST',
        i % 2 ? `${BASE}/ACK-1` : BASE,
        i % 2 ? undefined : JSON.stringify(person(`DOWN-${i}`)),
      );
      outage.push({
        status: r.status,
        ms: performance.now() - t,
        error: r.json?.error as string | undefined,
      });
    }
    for (const o of outage) {
      expect(o.status, JSON.stringify(o)).toBe(503);
      expect(o.error).toMatch(/^DynamoDB (create|get) (failed|did not answer)/);
      // Bounded by the handler's own deadline, well inside the function timeout: never a hang.
      expect(o.ms).toBeLessThan(Math.min(DB_DEADLINE_MS + 1000, FUNCTION_TIMEOUT.toMilliseconds()));
    }

    const restartedAt = performance.now();
    await lab.restartEngine();
    let recoveredMs = Number.NaN;
    for (let i = 0; i < 100; i++) {
      const r = await rawRequest(lab, 'GET', `${BASE}/ACK-0`);
      if (r.status === 200) {
        recoveredMs = performance.now() - restartedAt;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(recoveredMs).toBeLessThan(10_000);

    for (const id of acknowledged) {
      const r = await rawRequest(lab, 'GET', `${BASE}/${id}`);
      expect(r.status, id).toBe(200);
      expect((r.json?.person as { GovId?: string } | undefined)?.GovId).toBe(id);
    }
    console.log(
      `engine fault: outage answers ${outage.map((o) => `${o.status} in ${o.ms.toFixed(0)} ms`).join(', ')}; served again ${recoveredMs.toFixed(0)} ms after restart; ${acknowledged.length}/${acknowledged.length} acknowledged writes readable`,
    );
  }, 120_000);
});
