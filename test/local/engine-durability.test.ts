/**
 * Restart and durability (slow tier, test/tiers.mjs). Each local DynamoDB engine keeps its items
 * in dataDir across a stop and a start. Every engine the lab runs keeps each write it
 * acknowledged across a SIGKILL of its process mid-stream, with the settings the lab's run data
 * uses (written to the kernel, not synced): dynalite's LevelDB, DynamoDB Local's SQLite,
 * redis-server's append-only file with appendfsync no, and PostgreSQL with fsync off (its
 * synchronous commit on: off, it answers before the WAL is written). The JVM's starts make
 * dynamodb-local's cases the slowest engine tests; the fast tier keeps each engine's start,
 * round trip and stop (engines.test.ts).
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresEngine, socketClient, startPostgres } from '../../local/engines/postgres';
import { labDataDir, labTempDir } from '../../local/run-dir';
import { createTable, type EngineKind, FETCH_SCRIPT, localClientConfig } from '../../targets/dynamodb/engine';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import {
  cleanUpEngines,
  getFirstName,
  isRunning,
  putPerson,
  start,
  TABLE,
  tempDir,
} from '../support/engine-tests';
import { writeUntilKilled } from '../support/kill-mid-stream';

cleanUpEngines();
const runData: string[] = [];
afterAll(async () => {
  for (const d of runData) await rm(d, { recursive: true, force: true });
});

/** A folder where the lab keeps its run data (memory-backed where there is /dev/shm). */
async function runDataDir(prefix: string): Promise<string> {
  const dir = await labDataDir(prefix);
  runData.push(dir);
  return dir;
}

beforeAll(async () => {
  // DynamoDB Local's jar (Maven Central) on a cold machine only; a warm run returns at once.
  await promisify(execFile)('bash', [FETCH_SCRIPT], { cwd: join(import.meta.dirname, '../..') });
}, 240_000);

describe.each([
  ['dynalite', 20_000],
  ['dynamodb-local', 120_000],
] as const)('%s', (kind: EngineKind, timeoutMs: number) => {
  it(
    'keeps items in dataDir across a restart',
    async () => {
      const dataDir = await tempDir();
      const first = await start({ kind, port: 0, dataDir });
      await createTable(first.endpoint, TABLE);
      await putPerson(first.endpoint, 'P-2');
      await first.stop();
      expect(isRunning(first.pid)).toBe(false);

      const second = await start({ kind, port: 0, dataDir });
      expect(second.pid).not.toBe(first.pid);
      await createTable(second.endpoint, TABLE); // exists already: fine
      expect(await getFirstName(second.endpoint, 'P-2')).toBe('Ada');
    },
    timeoutMs * 2,
  );

  it(
    'keeps every acknowledged item in the run data across a SIGKILL mid-stream',
    async () => {
      const dataDir = await runDataDir(`test-${kind}-`);
      const first = await start({ kind, port: 0, dataDir });
      await createTable(first.endpoint, TABLE);
      const client = new DynamoDBClient({ ...localClientConfig(first.endpoint), maxAttempts: 1 });
      const { acknowledged, killed } = await writeUntilKilled(
        async (n) => {
          await client.send(new PutItemCommand({ TableName: TABLE, Item: { GovId: { S: `K-${n}` } } }), {
            abortSignal: AbortSignal.timeout(10_000),
          });
          return true;
        },
        () => process.kill(first.pid, 'SIGKILL'),
      );
      client.destroy();
      expect(killed).toBe(true);
      await first.stop();

      const second = await start({ kind, port: first.port, dataDir });
      const reader = new DynamoDBClient(localClientConfig(second.endpoint));
      const out = await reader.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
      reader.destroy();
      const kept = (out.Items ?? []).map((i) => i.GovId?.S);
      expect(kept).toEqual(expect.arrayContaining(acknowledged.map((n) => `K-${n}`)));
    },
    timeoutMs * 2,
  );
});

describe('redis-server (appendfsync no)', () => {
  const PASSWORD = 'durability-test-password';
  const engines: RedisEngine[] = [];
  afterAll(async () => {
    for (const e of engines) await e.stop();
  });

  it('keeps every acknowledged SET across a SIGKILL mid-stream', async () => {
    const dataDir = await runDataDir('test-redis-');
    const startOn = async (port?: number) => {
      const e = await startRedis({ port, password: PASSWORD, dataDir, durable: false });
      engines.push(e);
      return e;
    };
    const first = await startOn();
    const writer = new Redis(first.url, {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    writer.on('error', () => {});
    await writer.connect();
    const { acknowledged, killed } = await writeUntilKilled(
      async (n) => (await writer.set(`K-${n}`, String(n))) === 'OK',
      () => process.kill(first.pid, 'SIGKILL'),
      { killAfter: 200, max: 5_000 },
    );
    writer.disconnect();
    expect(killed).toBe(true);
    await first.stop();

    const second = await startOn(first.port);
    const reader = new Redis(second.url, { lazyConnect: true });
    await reader.connect();
    const values = await reader.mget(acknowledged.map((n) => `K-${n}`));
    reader.disconnect();
    expect(values).toEqual(acknowledged.map(String));
  }, 60_000);
});

describe('PostgreSQL (fsync off, as the run data)', () => {
  const engines: PostgresEngine[] = [];
  afterAll(async () => {
    for (const e of engines) await e.stop();
  });

  it('keeps every acknowledged commit across a SIGKILL mid-stream', async () => {
    const dataDir = await runDataDir('test-postgres-');
    const socketDir = await labTempDir('test-pgsock-');
    runData.push(socketDir);
    const startOn = async () => {
      const e = await startPostgres({ dataDir, socketDir, durable: false });
      engines.push(e);
      return e;
    };
    const first = await startOn();
    const setup = socketClient(socketDir);
    await setup.connect();
    await setup.query('CREATE TABLE kept (n int PRIMARY KEY)');
    await setup.end();
    const writers = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = socketClient(socketDir);
        c.on('error', () => {});
        await c.connect();
        return c;
      }),
    );
    const { acknowledged, killed } = await writeUntilKilled(
      async (n, w) => {
        const c = writers[w];
        await c.query('INSERT INTO kept VALUES ($1)', [n]);
        return true;
      },
      () => process.kill(first.pid, 'SIGKILL'),
      { killAfter: 300, max: 20_000 },
    );
    for (const c of writers) await c.end().catch(() => {});
    expect(killed).toBe(true);
    await first.stop();

    await startOn();
    const reader = socketClient(socketDir);
    await reader.connect();
    const rows = await reader.query<{ n: number }>('SELECT n FROM kept');
    await reader.end();
    const kept = new Set(rows.rows.map((r) => r.n));
    expect(acknowledged.filter((n) => !kept.has(n))).toEqual([]);
  }, 120_000);
});
