import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reachedDatabase } from '../../core/timing.mjs';
import { createPerson, getPerson, makeCreateHandler, makeGetHandler } from '../../lambda/shared/handlers';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import { type ExtensionStandIn, startExtensionStandIn } from '../../targets/redis/local';
import { makeRedisHandler } from '../../targets/redis/redis-handler';
import { parseRedisUrl } from '../../targets/redis/secret';
import { createRedisStore, personKey, type RedisPersonStore } from '../../targets/redis/store';
import { bodyOf, createEvent, getEvent, samplePerson } from '../support/events';

const PASSWORD = 'lab-handler-password';
const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:redis-url-AbCdEf';
const TOKEN = 'handler-test-token';

let engine: RedisEngine;
let admin: Redis;
const stores: RedisPersonStore[] = [];

/** A store as one execution environment has it: its own connection (or none kept). */
function environmentStore(keepAlive: 'on' | 'off'): RedisPersonStore {
  const s = createRedisStore({ target: parseRedisUrl(engine.url, 'test'), keepAlive });
  stores.push(s);
  return s;
}

beforeAll(async () => {
  engine = await startRedis({ password: PASSWORD });
  admin = new Redis({ port: engine.port, host: '127.0.0.1', password: PASSWORD, lazyConnect: true });
  await admin.connect();
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
afterAll(async () => {
  admin?.disconnect();
  await engine?.stop();
});

describe.each(['on', 'off'] as const)('Redis handlers with keep-alive %s', (keepAlive) => {
  it('201, then 409 for the same GovId without overwriting, then 200, then 404', async () => {
    const store = environmentStore(keepAlive);
    const create = makeCreateHandler(store, 'redis-create');
    const get = makeGetHandler(store, 'redis-get');
    const id = `RH-${keepAlive}-1`;

    const first = await create(createEvent(samplePerson(id)));
    expect(first.statusCode).toBe(201);
    expect(bodyOf(first).person).toEqual(samplePerson(id));
    const timing = bodyOf(first).timing;
    expect(timing.newConnection).toBe(true);
    // AUTH + EVAL, and QUIT when the connection is not kept.
    expect(timing.dbRequests).toBe(keepAlive === 'on' ? 2 : 3);

    const second = await create(createEvent({ ...samplePerson(id), FirstName: 'Other' }));
    expect(second.statusCode).toBe(409);
    expect(bodyOf(second)).toMatchObject({ field: 'GovId' });
    expect(JSON.parse((await admin.get(personKey(id))) ?? '{}').FirstName).toBe('Ada');

    const found = await get(getEvent(id));
    expect(found.statusCode).toBe(200);
    expect(bodyOf(found).person).toEqual(samplePerson(id));
    expect(bodyOf(found).timing).toMatchObject(
      keepAlive === 'on' ? { newConnection: false, dbRequests: 1 } : { newConnection: true, dbRequests: 3 },
    );

    const missing = await get(getEvent(`RH-${keepAlive}-missing`));
    expect(missing.statusCode).toBe(404);
    expect(bodyOf(missing)).toMatchObject({ field: 'govId' });
  });

  it('400 for bad input, with nothing sent to Redis', async () => {
    const store = environmentStore(keepAlive);
    const create = makeCreateHandler(store, 'redis-create');
    const get = makeGetHandler(store, 'redis-get');
    const keys = await admin.dbsize();
    for (const bad of [
      '{',
      JSON.stringify({ ...samplePerson('RH-BAD'), DOB: 'never' }),
      JSON.stringify({}),
    ]) {
      const r = await create(createEvent(bad));
      expect(r.statusCode, bad).toBe(400);
      expect(bodyOf(r).timing).toMatchObject({ dbRequests: 0, newConnection: false });
    }
    expect((await get(getEvent('x'.repeat(65)))).statusCode).toBe(400);
    expect(store.requestsSent()).toBe(0);
    expect(store.socketsOpened()).toBe(0);
    expect(await admin.dbsize()).toBe(keys);
  });
});

it('concurrent creates of one GovId from 8 environments: exactly one 201, the rest 409', async () => {
  const handlers = Array.from({ length: 8 }, (_, i) =>
    makeCreateHandler(environmentStore(i % 2 ? 'on' : 'off'), 'redis-create'),
  );
  const results = await Promise.all(
    handlers.map((h, i) => h(createEvent({ ...samplePerson('RH-RACE'), FirstName: `Env${i}` }))),
  );
  const statuses = results.map((r) => r.statusCode).sort();
  expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  const winner = results.findIndex((r) => r.statusCode === 201);
  expect(JSON.parse((await admin.get(personKey('RH-RACE'))) ?? '{}').FirstName).toBe(`Env${winner}`);
  expect(await admin.zrange('persons:by-type:Passport', '0', '-1')).toContain('RH-RACE');
});

describe('makeRedisHandler: the URL read on the first invocation, once per environment', () => {
  let extension: ExtensionStandIn;
  let secret: string | undefined;
  beforeAll(async () => {
    extension = await startExtensionStandIn((id) => (id === ARN ? secret : undefined), TOKEN);
  });
  afterAll(async () => {
    await extension?.close();
  });
  const env = (): NodeJS.ProcessEnv => ({
    REDIS_SECRET_ARN: ARN,
    KEEP_ALIVE: 'on',
    LAB_FUNCTION: 'redis-get',
    AWS_SESSION_TOKEN: TOKEN,
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
  });

  it('fails at init, naming the variable, when one is missing', () => {
    expect(() => makeRedisHandler(getPerson, { ...env(), REDIS_SECRET_ARN: '' })).toThrow(
      /REDIS_SECRET_ARN is required/,
    );
    expect(() => makeRedisHandler(getPerson, { ...env(), AWS_SESSION_TOKEN: undefined })).toThrow(
      /AWS_SESSION_TOKEN is required/,
    );
    expect(() => makeRedisHandler(getPerson, { ...env(), LAB_FUNCTION: undefined })).toThrow(
      'Environment variable LAB_FUNCTION is required but not set',
    );
  });

  it('reads nothing at init; the first call reads once, later calls never again', async () => {
    secret = engine.url;
    const before = extension.served();
    const create = makeRedisHandler(createPerson, { ...env(), LAB_FUNCTION: 'redis-create' }, async (e) => {
      const { redisStoreFromEnv } = await import('../../targets/redis/store');
      const s = await redisStoreFromEnv(e);
      stores.push(s);
      return s;
    });
    expect(extension.served()).toBe(before);
    expect((await create(createEvent(samplePerson('RH-LAZY-1')))).statusCode).toBe(201);
    expect((await create(createEvent(samplePerson('RH-LAZY-2')))).statusCode).toBe(201);
    expect(extension.served()).toBe(before + 1);
  });

  it('a secret that cannot be read answers 503 with why, and the next call tries again', async () => {
    secret = undefined;
    const get = makeRedisHandler(getPerson, env(), async (e) => {
      const { redisStoreFromEnv } = await import('../../targets/redis/store');
      const s = await redisStoreFromEnv(e);
      stores.push(s);
      return s;
    });
    const failed = await get(getEvent('RH-LAZY-1'));
    expect(failed.statusCode).toBe(503);
    expect(bodyOf(failed).error).toMatch(/^Redis get failed: the database URL could not be read: .*400/);
    // No database was called: the summary, the report and the EMF metrics leave it out.
    expect(bodyOf(failed).timing).toMatchObject({ dbMs: 0, newConnection: false, dbRequests: 0 });
    expect(reachedDatabase(503, bodyOf(failed).timing)).toBe(false);
    secret = engine.url;
    const served = await get(getEvent('RH-LAZY-1'));
    expect(served.statusCode).toBe(200);
    expect(reachedDatabase(200, bodyOf(served).timing)).toBe(true);
  });
});
