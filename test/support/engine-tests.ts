/** Start/stop bookkeeping and a one-table round trip for the engine tests (engines, engine-durability). */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, expect } from 'vitest';
import {
  type Engine,
  localClientConfig,
  type StartEngineOptions,
  startEngine,
} from '../../targets/dynamodb/engine';

export const TABLE = 'People';

// Every engine a test starts is stopped even when the test fails half-way.
const started: Engine[] = [];
export async function start(opts: StartEngineOptions): Promise<Engine> {
  const t0 = Date.now();
  const engine = await startEngine(opts);
  started.push(engine);
  console.info(`${opts.kind}${opts.dataDir ? ' (dataDir)' : ''} started in ${Date.now() - t0} ms`);
  return engine;
}

const tempDirs: string[] = [];
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'engines-test-'));
  tempDirs.push(dir);
  return dir;
}

/** Call at a test file's top level: stops every engine after each test, removes the folders at the end. */
export function cleanUpEngines(): void {
  afterEach(async () => {
    await Promise.all(started.splice(0).map((e) => e.stop()));
  });
  afterAll(async () => {
    await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
  });
}

export async function putPerson(endpoint: string, govId: string): Promise<void> {
  const client = new DynamoDBClient(localClientConfig(endpoint));
  try {
    await client.send(
      new PutItemCommand({ TableName: TABLE, Item: { GovId: { S: govId }, FirstName: { S: 'Ada' } } }),
    );
  } finally {
    client.destroy();
  }
}

export async function getFirstName(endpoint: string, govId: string): Promise<string | undefined> {
  const client = new DynamoDBClient(localClientConfig(endpoint));
  try {
    const out = await client.send(
      new GetItemCommand({ TableName: TABLE, Key: { GovId: { S: govId } }, ConsistentRead: true }),
    );
    return out.Item?.FirstName?.S;
  } finally {
    client.destroy();
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ESRCH');
    return false;
  }
}
