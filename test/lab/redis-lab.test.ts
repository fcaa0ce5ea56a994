import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_DEADLINE_MS } from '../../lambda/shared/http-client';
import { personKey } from '../../lambda/shared/redis-store';
import { FUNCTION_TIMEOUT } from '../../lib/constructs/perf-function';
import { type RunningLab, startLab } from '../../local/lab';
import { person, rawRequest } from '../support/lab-http';
import { labRedisAdmin } from '../support/lab-redis';

interface TimingBlock {
  dbMs: number;
  newConnection: boolean;
  dbRequests: number;
  coldStart: boolean;
}
const timingOf = (r: { json?: Record<string, unknown> }) => r.json?.timing as TimingBlock;

/** One lab for the whole file (dynamodb + redis, both keep-alive variants, data on disk). */
describe('the redis target in the local lab', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-redis-'));
  let lab: RunningLab;
  let admin: Redis;
  beforeAll(async () => {
    lab = await startLab({ port: 0, dataDir, context: { targets: 'dynamodb,redis' } });
    admin = await labRedisAdmin(lab);
  }, 180_000);
  afterAll(async () => {
    admin?.disconnect();
    await lab?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the Redis routes beside DynamoDB, each function with its URL from the extension stand-in', () => {
    const routes = lab.assembly.routes.map((r) => `${r.method} ${r.path}`).sort();
    for (const variant of ['on', 'off']) {
      expect(routes).toContain(`POST /redis/keepalive-${variant}/person`);
      expect(routes).toContain(`GET /redis/keepalive-${variant}/person/{govId}`);
    }
    const redis = lab.targets.get('redis');
    expect(redis?.database.description).toBe('redis-server');
  });

  it('keep-alive on: a warm get is 1 command on the kept connection', async () => {
    const base = '/redis/keepalive-on/person';
    const created = await rawRequest(lab, 'POST', base, JSON.stringify(person('RL-ON-1')));
    expect(created.status, created.text).toBe(201);
    // A new environment's first call: connect + AUTH + EVAL.
    expect(timingOf(created)).toMatchObject({ newConnection: true, dbRequests: 2 });

    const again = await rawRequest(lab, 'POST', base, JSON.stringify(person('RL-ON-1')));
    expect(again.status).toBe(409);

    const first = await rawRequest(lab, 'GET', `${base}/RL-ON-1`);
    expect(first.status, first.text).toBe(200);
    expect((first.json?.person as { GovId?: string } | undefined)?.GovId).toBe('RL-ON-1');
    const warm = await rawRequest(lab, 'GET', `${base}/RL-ON-1`);
    expect(warm.status).toBe(200);
    expect(timingOf(warm)).toMatchObject({ newConnection: false, dbRequests: 1, coldStart: false });

    const missing = await rawRequest(lab, 'GET', `${base}/RL-NOBODY`);
    expect(missing.status).toBe(404);
    expect(await admin.get(personKey('RL-ON-1'))).toContain('"GovId":"RL-ON-1"');
  }, 60_000);

  it('keep-alive off: every call opens a connection and sends AUTH + command + QUIT', async () => {
    const base = '/redis/keepalive-off/person';
    const created = await rawRequest(lab, 'POST', base, JSON.stringify(person('RL-OFF-1')));
    expect(created.status, created.text).toBe(201);
    expect(timingOf(created)).toMatchObject({ newConnection: true, dbRequests: 3 });
    for (let i = 0; i < 2; i++) {
      const got = await rawRequest(lab, 'GET', `${base}/RL-OFF-1`);
      expect(got.status, got.text).toBe(200);
      expect(timingOf(got)).toMatchObject({ newConnection: true, dbRequests: 3 });
    }
    // Keep-alive off pays connect + TLS + AUTH round trips that a kept connection does not.
    const on = await rawRequest(lab, 'GET', '/redis/keepalive-on/person/RL-ON-1');
    const off = await rawRequest(lab, 'GET', `${base}/RL-OFF-1`);
    expect(timingOf(off).dbMs).toBeGreaterThan(timingOf(on).dbMs);
  }, 60_000);

  it('redis-server killed mid-run: bounded 503s, served again soon after restart, no acknowledged create lost', async () => {
    const base = '/redis/keepalive-on/person';
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) {
      const id = `RL-ACK-${i}`;
      const r = await rawRequest(lab, 'POST', base, JSON.stringify(person(id)));
      expect(r.status, r.text).toBe(201);
      acknowledged.push(id);
    }
    const redis = lab.targets.get('redis');
    if (!redis) throw new Error('no redis target');
    admin.disconnect();
    // SIGKILL: no clean shutdown; only the fsynced append-only file keeps what was acknowledged.
    process.kill(redis.database.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));

    const outage: { status: number; ms: number; error?: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      const r = await rawRequest(
        lab,
        i % 2 ? 'GET' : 'POST',
        i % 2 ? `${base}/RL-ACK-1` : base,
        i % 2 ? undefined : JSON.stringify(person(`RL-DOWN-${i}`)),
      );
      outage.push({
        status: r.status,
        ms: performance.now() - t,
        error: r.json?.error as string | undefined,
      });
    }
    for (const o of outage) {
      expect(o.status, JSON.stringify(o)).toBe(503);
      expect(o.error).toMatch(/^Redis (create|get) (failed|did not answer)/);
      expect(o.ms).toBeLessThan(Math.min(DB_DEADLINE_MS + 1000, FUNCTION_TIMEOUT.toMilliseconds()));
    }

    const restartedAt = performance.now();
    await lab.restartEngine('redis');
    let recoveredMs = Number.NaN;
    for (let i = 0; i < 100; i++) {
      const r = await rawRequest(lab, 'GET', `${base}/RL-ACK-0`);
      if (r.status === 200) {
        recoveredMs = performance.now() - restartedAt;
        break;
      }
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(recoveredMs).toBeLessThan(10_000);
    for (const id of acknowledged) {
      const r = await rawRequest(lab, 'GET', `${base}/${id}`);
      expect(r.status, id).toBe(200);
      expect((r.json?.person as { GovId?: string } | undefined)?.GovId).toBe(id);
    }
    admin = await labRedisAdmin(lab);
    console.log(
      `redis fault: outage answers ${outage.map((o) => `${o.status} in ${o.ms.toFixed(0)} ms`).join(', ')}; served again ${recoveredMs.toFixed(0)} ms after restart; ${acknowledged.length}/${acknowledged.length} acknowledged creates readable`,
    );
  }, 120_000);
});
