import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningLab, startLab } from '../../local/lab';
import { personKey } from '../../targets/redis/store';
import { describeFault, killEngineMidRun } from '../support/engine-fault';
import { person, rawRequest } from '../support/lab-http';
import { labRedisAdmin } from '../support/lab-redis';
import { LAB_TEST_CONTEXT } from '../support/lab-test-context';

interface TimingBlock {
  dbMs: number;
  newConnection: boolean;
  dbRequests: number;
  dbRoundTrips: number;
  coldStart: boolean;
}
const timingOf = (r: { json?: Record<string, unknown> }) => r.json?.timing as TimingBlock;

/** One lab for the whole file (dynamodb + redis, both keep-alive variants, data on disk). */
describe('the redis target in the local lab', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lab-redis-'));
  let lab: RunningLab;
  let admin: Redis;
  const labLines: string[] = [];
  const engineLines: string[] = [];
  beforeAll(async () => {
    lab = await startLab({
      port: 0,
      dataDir,
      context: LAB_TEST_CONTEXT,
      log: (line) => labLines.push(line),
      engineLog: (line) => engineLines.push(line),
    });
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

  it("keeps the engines' own lines apart from the lab's: what a terminal shows names no engine line", () => {
    // What the engines and their network models print, prefixed with their name.
    const engineLine = /^\[(dynalite|redis|network-model)\] /;
    expect(engineLines.some((l) => l.startsWith('[redis] ready at'))).toBe(true);
    expect(engineLines.some((l) => l.startsWith('[dynalite] ready at'))).toBe(true);
    expect(engineLines.some((l) => l.startsWith('[network-model] '))).toBe(true);
    expect(labLines.filter((l) => engineLine.test(l))).toEqual([]);
    // The lab's own lines still come through: each target's line names its engine and link.
    expect(labLines.some((l) => l.startsWith('Redis: redis-server (pid '))).toBe(true);
  });

  it('each TLS front negotiated TLS 1.2 with a client pinned to it and TLS 1.3 otherwise, as AWS endpoints do', () => {
    for (const target of ['dynamodb', 'redis'] as const) {
      expect(lab.targets.get(target)?.tlsVersions).toEqual(['TLSv1.2', 'TLSv1.3']);
    }
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
    // Keep-alive off pays connect + TLS + AUTH round trips that a kept connection does not: counted,
    // not timed (a seeded service-time draw can make one kept call slower than one fresh one).
    const on = await rawRequest(lab, 'GET', '/redis/keepalive-on/person/RL-ON-1');
    const off = await rawRequest(lab, 'GET', `${base}/RL-OFF-1`);
    expect(timingOf(on)).toMatchObject({ newConnection: false, dbRoundTrips: 1 });
    expect(timingOf(off).dbRoundTrips).toBeGreaterThan(timingOf(on).dbRoundTrips);
  }, 60_000);

  it('redis-server killed mid-run: bounded 503s, served again soon after restart, no acknowledged create lost', async () => {
    admin.disconnect();
    // Only the fsynced append-only file keeps what was acknowledged.
    const fault = await killEngineMidRun(lab, {
      target: 'redis',
      base: '/redis/keepalive-on/person',
      label: 'Redis',
      idPrefix: 'RL',
    });
    admin = await labRedisAdmin(lab);
    console.log(describeFault('redis', fault));
  }, 120_000);
});
