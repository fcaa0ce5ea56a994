/**
 * Each engine alone, in memory against on files as the lab's run data keeps them (bench section
 * 11): straight to the engine on one kept-alive connection, no network model and no function,
 * so the difference is the files' own cost. The two take turns in blocks (ABBA), so drift on a
 * shared machine falls on both. DynamoDB's engines are timed by dynamodb-engines.ts.
 *   redis     GET and SET: no append-only file, against appendonly yes, appendfsync no
 *   qldb      a read transaction and an insert (the driver, as the functions run it): memory,
 *             against the journal written per commit, not synced
 *   postgres  SELECT by key and INSERT (autocommit): synchronous commit off, against on (the
 *             run data's; fsync off in both)
 */
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { createLabHttp } from '../lambda/shared/http-client';
import { socketClient, startPostgres } from '../local/engines/postgres';
import { labDataDir, labTempDir } from '../local/run-dir';
import { startQldbEngine } from '../targets/qldb/engine';
import { createQldbDriver } from '../targets/qldb/store';
import { onEvent } from '../targets/qldb/tables-resource';
import { startRedis } from '../targets/redis/engine';
import { median } from './init-over-empty';

export interface PersistencePair {
  readonly engine: string;
  readonly read: string;
  readonly write: string;
  /** p50, ms: [in memory, on files] */
  readonly readMs: readonly [number, number];
  readonly writeMs: readonly [number, number];
}

/** One engine set up one way: a read and a write it times, and its stop. */
interface Subject {
  read(n: number): Promise<void>;
  write(n: number): Promise<void>;
  stop(): Promise<void>;
}

async function timed(f: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function compare(
  engine: string,
  [read, write]: [string, string],
  start: (onFiles: boolean) => Promise<Subject>,
  requests: number,
  block: number,
): Promise<PersistencePair> {
  const subjects: Subject[] = [];
  try {
    for (const onFiles of [false, true]) subjects.push(await start(onFiles));
    const reads: number[][] = [[], []];
    const writes: number[][] = [[], []];
    // Each subject writes its own numbers: reads find the first 100 in both.
    const next = [0, 0];
    for (const [k, s] of subjects.entries()) for (let i = 0; i < 100; i++) await s.write(next[k]++);
    for (let done = 0, round = 0; done < requests; done += block, round++) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const s = subjects[k];
        for (let i = 0; i < block; i++) {
          reads[k].push(await timed(() => s.read(i % 100)));
          writes[k].push(await timed(() => s.write(next[k]++)));
        }
      }
    }
    return {
      engine,
      read,
      write,
      readMs: [median(reads[0]), median(reads[1])],
      writeMs: [median(writes[0]), median(writes[1])],
    };
  } finally {
    for (const s of subjects) await s.stop();
  }
}

async function redisSubject(onFiles: boolean): Promise<Subject> {
  const dataDir = onFiles ? await labDataDir('bench-redis-') : undefined;
  const engine = await startRedis({ password: 'bench-persistence', dataDir, durable: false });
  const client = new Redis(engine.url, { lazyConnect: true });
  await client.connect();
  return {
    read: async (n) => {
      await client.get(`K-${n}`);
    },
    write: async (n) => {
      await client.set(`K-${n}`, `value-${n}`);
    },
    stop: async () => {
      client.disconnect();
      await engine.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresSubject(onFiles: boolean): Promise<Subject> {
  const dataDir = await labDataDir('bench-postgres-');
  const socketDir = await labTempDir('bench-pgsock-');
  const engine = await startPostgres({ dataDir, socketDir, durable: false, asyncCommit: !onFiles });
  const client: pg.Client = socketClient(socketDir);
  await client.connect();
  await client.query('CREATE TABLE person (gov_id text PRIMARY KEY, first_name text)');
  return {
    read: async (n) => {
      await client.query('SELECT first_name FROM person WHERE gov_id = $1', [`P-${n}`]);
    },
    write: async (n) => {
      await client.query('INSERT INTO person VALUES ($1, $2)', [`P-${n}`, 'Bench']);
    },
    stop: async () => {
      await client.end();
      await engine.stop();
      await rm(dataDir, { recursive: true, force: true });
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}

const LEDGER = 'bench';

async function qldbSubject(onFiles: boolean): Promise<Subject> {
  const dataDir = onFiles ? await labDataDir('bench-qldb-') : undefined;
  const engine = await startQldbEngine({ dataDir, syncJournal: false, ledgers: [LEDGER] });
  const newDriver = (): QldbDriver =>
    createQldbDriver(LEDGER, createLabHttp('on').options, {
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      endpoint: engine.endpoint,
    });
  const driver = newDriver();
  const log = console.log;
  console.log = () => {};
  try {
    await onEvent(
      {
        RequestType: 'Create',
        ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider',
        ResponseURL: 'https://cloudformation-custom-resource-response.example/',
        StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/bench/1',
        RequestId: 'bench',
        LogicalResourceId: 'QldbTables',
        ResourceType: 'Custom::QldbTables',
        ResourceProperties: {
          ServiceToken: 'arn:aws:lambda:us-east-1:000000000000:function:provider',
          LedgerName: LEDGER,
          Tables: ['Person'],
          Indexes: [{ Table: 'Person', Attribute: 'GovId' }],
        },
      },
      // The custom resource closes the driver it was given.
      newDriver,
    );
  } finally {
    console.log = log;
  }
  return {
    read: async (n) => {
      await driver.executeLambda((txn) => txn.execute('SELECT * FROM Person WHERE GovId = ?', `Q-${n}`));
    },
    write: async (n) => {
      await driver.executeLambda((txn) =>
        txn.execute('INSERT INTO Person ?', { GovId: `Q-${n}`, FirstName: 'Bench' }),
      );
    },
    stop: async () => {
      driver.close();
      await engine.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function enginePersistence(
  requests: number,
  log: (line: string) => void,
): Promise<PersistencePair[]> {
  const rows: PersistencePair[] = [];
  rows.push(await compare('redis', ['GET', 'SET'], redisSubject, requests, 100));
  log(`redis: ${requests} requests each done`);
  rows.push(await compare('qldb', ['read txn', 'insert txn'], qldbSubject, Math.ceil(requests / 4), 25));
  log(`qldb: ${Math.ceil(requests / 4)} transactions each done`);
  rows.push(await compare('postgres', ['SELECT', 'INSERT'], postgresSubject, requests, 100));
  log(`postgres: ${requests} requests each done`);
  return rows;
}

export function formatPersistencePairs(rows: readonly PersistencePair[]): string[] {
  const f = (n: number) => n.toFixed(3);
  return rows.map(
    (r) =>
      `   ${r.engine.padEnd(9)} ${r.read.padEnd(9)} memory ${f(r.readMs[0])}  files ${f(r.readMs[1])}  ${f(r.readMs[1] - r.readMs[0])}   ${r.write.padEnd(10)} memory ${f(r.writeMs[0])}  files ${f(r.writeMs[1])}  ${f(r.writeMs[1] - r.writeMs[0])}`,
  );
}
