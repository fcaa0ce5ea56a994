/**
 * put10 on DynamoDB (the keep-alive article's "10 sequential DynamoDB operations in a single
 * function"): ten conditional puts one after the other in one invocation, against a real
 * dynalite. What matters: ten requests really go out, on ten connections without keep-alive
 * and on one with it; a Person that exists is left alone and named; bad input writes nothing.
 */
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makePut10Handler } from '../../lambda/shared/handlers';
import { dynamoDbStoreFromEnv } from '../../targets/dynamodb/store';
import { apiEvent, bodyOf, samplePerson } from '../support/events';
import { tableOfItsOwn } from '../support/shared-engines';
import { sharedTestEngine, type TestEngine } from '../support/test-engine';

// The run's shared dynalite (test/support/shared-engines.ts), with a table of this file's own.
const TABLE = tableOfItsOwn('Person');
const env = (keepAlive: 'on' | 'off'): NodeJS.ProcessEnv => ({
  ...process.env,
  TABLE_NAME: TABLE,
  KEEP_ALIVE: keepAlive,
});
const put10Event = (body: unknown) =>
  apiEvent({ method: 'POST', path: '/dynamodb/persons', body: JSON.stringify(body) });
const ten = (prefix: string) => Array.from({ length: 10 }, (_, i) => samplePerson(`${prefix}-${i}`));

let engine: TestEngine;
let admin: DynamoDBClient;

beforeAll(async () => {
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
  engine = await sharedTestEngine('dynalite', TABLE);
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
  admin = new DynamoDBClient({});
});

afterAll(async () => {
  admin?.destroy();
  await engine?.stop();
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

async function govIds(): Promise<string[]> {
  const out = await admin.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
  return (out.Items ?? []).map((i) => i.GovId?.S ?? '').sort();
}

describe('put10 on DynamoDB', () => {
  it.each([
    ['off', 10],
    ['on', 1],
  ] as const)(
    'keep-alive %s: 201, ten PutItems on %i connection(s), all ten written',
    async (keepAlive, sockets) => {
      const store = dynamoDbStoreFromEnv(env(keepAlive));
      const put10 = makePut10Handler(store, 'dynamodb-put10');
      const before = store.socketsOpened();
      const response = await put10(put10Event({ persons: ten(`KA-${keepAlive}`) }));
      expect(response.statusCode).toBe(201);
      expect(bodyOf(response)).toMatchObject({ created: 10 });
      const { timing } = bodyOf(response);
      // Ten requests, each awaited before the next: ten round trips.
      expect(timing.dbRequests).toBe(10);
      expect(timing.dbRoundTrips).toBe(10);
      expect(timing.newConnection).toBe(true);
      expect(store.socketsOpened() - before).toBe(sockets);
      const written = await govIds();
      for (const p of ten(`KA-${keepAlive}`)) expect(written).toContain(p.GovId);
    },
  );

  it('409 naming the Persons that existed, which stay as they were; the others are written', async () => {
    const store = dynamoDbStoreFromEnv(env('on'));
    const put10 = makePut10Handler(store, 'dynamodb-put10');
    const first = ten('DUP').slice(0, 10);
    expect((await put10(put10Event({ persons: first }))).statusCode).toBe(201);
    const mixed = [{ ...first[3], FirstName: 'Mallory' }, ...ten('NEW').slice(0, 9)];
    const response = await put10(put10Event({ persons: mixed }));
    expect(response.statusCode).toBe(409);
    expect(bodyOf(response)).toMatchObject({ field: 'persons', created: 9, existing: ['DUP-3'] });
    expect(bodyOf(response).error).toContain('DUP-3');
    const out = await admin.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
    const dup3 = (out.Items ?? []).find((i) => i.GovId?.S === 'DUP-3');
    expect(dup3?.FirstName?.S).toBe('Ada');
    expect(await govIds()).toEqual(
      expect.arrayContaining(
        ten('NEW')
          .slice(0, 9)
          .map((p) => p.GovId),
      ),
    );
  });

  it.each([
    ['nine Persons', { persons: ten('BAD9').slice(0, 9) }, 'persons', /array of 10 Persons/],
    [
      'a repeated GovId',
      { persons: [...ten('REP').slice(0, 9), samplePerson('REP-0')] },
      'persons[9].GovId',
      /repeated/,
    ],
    [
      'an invalid Person',
      { persons: [...ten('INV').slice(0, 9), { ...samplePerson('INV-9'), DOB: 'yesterday' }] },
      'persons[9].DOB',
      /^persons\[9\]: /,
    ],
    ['an unknown field', { persons: ten('UNK'), extra: 1 }, 'extra', /unknown field extra/],
  ])('400 for %s, and nothing is written', async (_what, body, field, error) => {
    const store = dynamoDbStoreFromEnv(env('on'));
    const put10 = makePut10Handler(store, 'dynamodb-put10');
    const before = await govIds();
    const response = await put10(put10Event(body));
    expect(response.statusCode).toBe(400);
    expect(bodyOf(response)).toMatchObject({ field });
    expect(bodyOf(response).error).toMatch(error);
    expect(bodyOf(response).timing.dbRequests).toBe(0);
    expect(await govIds()).toEqual(before);
  });
});
