/**
 * overwrite, update and query on DynamoDB, handler -> store -> SDK -> a real local engine
 * (dynalite and Amazon DynamoDB Local), the table made with the synthesized schema and its index.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeCreateHandler, makeOverwriteHandler, makeUpdateHandler } from '../../lambda/shared/handlers';
import { createLabHttp, MAX_ATTEMPTS, REQUEST_TIMEOUT_MS } from '../../lambda/shared/http-client';
import { createDynamoDbStore, dynamoDbStoreFromEnv } from '../../targets/dynamodb/store';
import { bodyOf, createEvent, overwriteEvent, samplePerson, updateEvent } from '../support/events';
import { SHARED_ENGINE_HOOK_MS, tableOfItsOwn } from '../support/shared-engines';
import { sharedTestEngine, type TestEngine } from '../support/test-engine';
import { describeTopStories } from '../support/top-stories-contract';
import { describeWorkloads } from '../support/workload-contract';

// The run's shared engines (test/support/shared-engines.ts), with a table of this file's own.
const TABLE = tableOfItsOwn('Person');
const env = (): NodeJS.ProcessEnv => ({ ...process.env, TABLE_NAME: TABLE, KEEP_ALIVE: 'on' });

beforeAll(() => {
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

describe.each(['dynalite', 'dynamodb-local'] as const)('DynamoDB workloads against %s', (kind) => {
  let engine: TestEngine;
  let admin: DynamoDBClient;

  beforeAll(async () => {
    engine = await sharedTestEngine(kind, TABLE);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
    admin = new DynamoDBClient({});
  }, SHARED_ENGINE_HOOK_MS);
  afterAll(async () => {
    admin?.destroy();
    await engine?.stop();
  });

  // One request per call, hit or miss: PutItem and UpdateItem with a condition, one Query.
  describeWorkloads(() => ({
    name: 'dynamodb',
    store: () => dynamoDbStoreFromEnv(env()),
    warm: { overwrite: 1, overwriteMissing: 1, update: 1, updateMissing: 1, query: 1 },
  }));

  // A view is one conditional UpdateItem (ADD Views, SET Section), the top 10 one Query of the
  // sparse TopStories index, both on the table the synthesized schema made.
  // The functions' store with 3x their request timeout: an UpdateItem answered late on a loaded
  // machine is waited for, not sent again, since a retried ADD counts a view twice (the store's
  // own note) and the top 10's order and counts are what these cases check.
  describeTopStories(() => ({
    name: 'dynamodb',
    store: () => {
      const http = createLabHttp('on', 3 * REQUEST_TIMEOUT_MS);
      const client = new DynamoDBClient({ requestHandler: http.handler, maxAttempts: MAX_ATTEMPTS });
      return createDynamoDbStore(client, TABLE, http);
    },
    warm: { view: 1, viewMissing: 1, top10: 1 },
  }));

  it('stores CreatedAt as a number: stamped by create, renewed by overwrite, kept by update', async () => {
    const store = dynamoDbStoreFromEnv(env());
    const createdAt = async (id: string) => {
      const out = await admin.send(
        new GetItemCommand({ TableName: TABLE, Key: { GovId: { S: id } }, ConsistentRead: true }),
      );
      return Number(out.Item?.CreatedAt?.N);
    };
    const id = `CA-${kind}`;
    const before = Date.now();
    expect(
      (await makeCreateHandler(store, 'dynamodb-create')(createEvent(samplePerson(id)))).statusCode,
    ).toBe(201);
    const created = await createdAt(id);
    expect(created).toBeGreaterThanOrEqual(before);
    expect(created).toBeLessThanOrEqual(Date.now());
    const update = makeUpdateHandler(store, 'dynamodb-update');
    expect((await update(updateEvent(id, { Address: 'New' }))).statusCode).toBe(200);
    expect(await createdAt(id)).toBe(created);
    await new Promise((r) => setTimeout(r, 3));
    const overwrite = makeOverwriteHandler(store, 'dynamodb-overwrite');
    const r = await overwrite(overwriteEvent(id, samplePerson(id)));
    expect(bodyOf(r).person).toEqual(samplePerson(id));
    expect(await createdAt(id)).toBeGreaterThan(created);
  });
});
