/**
 * PostgreSQL killed mid-run under the dsql handlers (durable data dir): calls during the outage
 * answer 503 within the handler's bounds, calls after the restart succeed, and every create
 * that was answered 201 is still there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCreateHandler } from '../../lambda/shared/handlers';
import { DB_DEADLINE_MS } from '../../lambda/shared/http-client';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { adminConnect, onEvent } from '../../targets/dsql/schema-resource';
import { createDsqlStore } from '../../targets/dsql/store';
import { type DsqlLocal, LOCAL_DSQL_HOST, startDsqlLocal } from '../support/dsql-local';
import { bodyOf, createEvent, samplePerson } from '../support/events';

let local: DsqlLocal;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'lab-dsql-fault-'));
  local = await startDsqlLocal({ rttMs: 2, dataDir });
  await onEvent(
    {
      RequestType: 'Create',
      ResourceType: 'Custom::DsqlSchema',
      ResourceProperties: { ServiceToken: 'local', ClusterId: 'localcluster', Role: 'lab_app' },
    } as never,
    adminConnect(
      { AWS_REGION: LOCAL_REGION, DSQL_ENDPOINT: LOCAL_DSQL_HOST, DSQL_PORT: String(local.model.port) },
      { ca: local.ca },
      LOCAL_CREDENTIALS,
    ),
  );
});

afterAll(async () => {
  await local?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('dsql handlers when PostgreSQL is killed', () => {
  it('answer bounded 503s during the outage, recover, and lose no acknowledged write', async () => {
    const handlers = (['on', 'off'] as const).map((keepAlive) =>
      makeCreateHandler(
        createDsqlStore({
          endpoint: { host: LOCAL_DSQL_HOST, port: local.model.port, user: 'lab_app' },
          tokens: local.tokens('DbConnect'),
          keepAlive,
          tls: { ca: local.ca },
        }),
        `dsql-create-keepalive-${keepAlive}`,
      ),
    );
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    let slowest = 0;
    let n = 0;
    const call = async () => {
      for (const handler of handlers) {
        const govId = `FAULT-${n++}`;
        const t0 = performance.now();
        const r = await handler(createEvent(samplePerson(govId)));
        slowest = Math.max(slowest, performance.now() - t0);
        statuses.push(r.statusCode);
        if (r.statusCode === 201) acknowledged.push(govId);
        else expect(r.statusCode, JSON.stringify(bodyOf(r))).toBe(503);
      }
    };
    for (let i = 0; i < 10; i++) await call();
    const killed = local.restart('kill'); // SIGKILL, then start again on the same port and data
    for (let i = 0; i < 10; i++) {
      await call();
      await sleep(20);
    }
    await killed;
    for (let i = 0; i < 10; i++) await call();
    expect(statuses.slice(0, 20).every((s) => s === 201)).toBe(true);
    expect(statuses).toContain(503);
    // Answered after the restart: the kept connection was replaced, nothing fails any more.
    expect(statuses.slice(-20).every((s) => s === 201)).toBe(true);
    // Every call ended by the handler's own deadline at worst (3x slack: a hang would never end).
    expect(slowest).toBeLessThan(3 * DB_DEADLINE_MS);
    const admin = await local.admin();
    try {
      const rows = await admin.query<{ govid: string }>(
        "SELECT govid FROM person WHERE govid LIKE 'FAULT-%'",
      );
      const stored = new Set(rows.rows.map((r) => r.govid));
      expect(acknowledged.filter((g) => !stored.has(g))).toEqual([]);
    } finally {
      await admin.end();
    }
  });
});
