/**
 * overwrite, update and query on Redis: handler -> store -> ioredis -> a real redis-server,
 * each one Lua script (one round trip), the by-type sorted set kept right.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCreateHandler, makeOverwriteHandler, makeUpdateHandler } from '../../lambda/shared/handlers';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import { parseRedisUrl } from '../../targets/redis/secret';
import { byTypeKey, createRedisStore, personKey, type RedisPersonStore } from '../../targets/redis/store';
import { bodyOf, createEvent, overwriteEvent, samplePerson, updateEvent } from '../support/events';
import { describeTopStories } from '../support/top-stories-contract';
import { describeWorkloads } from '../support/workload-contract';

const PASSWORD = 'lab-workloads-password';
let engine: RedisEngine;
let admin: Redis;
const stores: RedisPersonStore[] = [];

function environmentStore(keepAlive: 'on' | 'off' = 'on'): RedisPersonStore {
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

describe('Redis workloads', () => {
  // Warm, keep-alive on: create and update are one EVAL on the kept connection; an overwrite
  // that changes the GovIdType (as this one does) a second EVAL declaring the old type's set;
  // the query ZREVRANGE then MGET (scripts declare their keys: redis-store.ts).
  describeWorkloads(() => ({
    name: 'redis',
    store: () => environmentStore('on'),
    warm: { overwrite: 2, overwriteMissing: 1, update: 1, updateMissing: 1, query: 2 },
  }));

  // A view is one EVAL (GET + ZINCRBY on the server), the top 10 one EVAL (ZREVRANGE ... WITHSCORES
  // and the records' GETs on the server): one round trip, as the article's ZREVRANGE.
  describeTopStories(() => ({
    name: 'redis',
    store: () => environmentStore('on'),
    warm: { view: 1, viewMissing: 1, top10: 1 },
  }));

  it('keep-alive off: each call connects, AUTHs, runs its one script and QUITs', async () => {
    const store = environmentStore('off');
    const id = 'RW-OFF';
    expect((await makeCreateHandler(store, 'redis-create')(createEvent(samplePerson(id)))).statusCode).toBe(
      201,
    );
    const r = await makeUpdateHandler(store, 'redis-update')(updateEvent(id, { Address: 'Off Street' }));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r).timing).toMatchObject({ newConnection: true, dbRequests: 3 });
  });

  it('an overwrite moves the GovId between by-type sets and rescores it; an update keeps its score and stores only Person fields', async () => {
    const store = environmentStore('on');
    const id = 'RW-MOVE';
    const oldType = 'RW-Old';
    const newType = 'RW-New';
    await makeCreateHandler(store, 'redis-create')(createEvent({ ...samplePerson(id), GovIdType: oldType }));
    const created = Number(await admin.zscore(byTypeKey(oldType), id));
    expect(created).toBeGreaterThan(0);

    await new Promise((r) => setTimeout(r, 3));
    const next = { ...samplePerson(id), GovIdType: newType, Address: 'Élan Street 5 / "quoted"' };
    expect((await makeOverwriteHandler(store, 'redis-overwrite')(overwriteEvent(id, next))).statusCode).toBe(
      200,
    );
    expect(await admin.zscore(byTypeKey(oldType), id)).toBeNull();
    const rescored = Number(await admin.zscore(byTypeKey(newType), id));
    expect(rescored).toBeGreaterThan(created);
    expect(JSON.parse((await admin.get(personKey(id))) ?? '{}')).toEqual(next);

    const r = await makeUpdateHandler(store, 'redis-update')(updateEvent(id, { Address: 'Ünïcode Road' }));
    expect(bodyOf(r).person).toEqual({ ...next, Address: 'Ünïcode Road' });
    expect(Number(await admin.zscore(byTypeKey(newType), id))).toBe(rescored);
    // Re-encoded by the script (cjson), still exactly the Person's fields.
    expect(JSON.parse((await admin.get(personKey(id))) ?? '{}')).toEqual({
      ...next,
      Address: 'Ünïcode Road',
    });
  });
});
