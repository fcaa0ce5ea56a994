import net from 'node:net';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isTiming } from '../../core/timing.mjs';
import { makeCreateHandler, makeGetHandler } from '../../lambda/shared/handlers';
import { createLabHttp, MAX_ATTEMPTS, REQUEST_TIMEOUT_MS } from '../../lambda/shared/http-client';
import { createDynamoDbStore, dynamoDbStoreFromEnv } from '../../targets/dynamodb/store';
import { apiEvent, bodyOf, createEvent, getEvent, samplePerson } from '../support/events';
import { SHARED_ENGINE_HOOK_MS, tableOfItsOwn } from '../support/shared-engines';
import { sharedTestEngine, type TestEngine } from '../support/test-engine';

// The run's shared engines (test/support/shared-engines.ts), with a table of this file's own.
const TABLE = tableOfItsOwn('Person');

const localEnv = (keepAlive: 'on' | 'off'): NodeJS.ProcessEnv => ({
  ...process.env,
  TABLE_NAME: TABLE,
  KEEP_ALIVE: keepAlive,
});

beforeAll(() => {
  // The SDK reads these exactly as it does in Lambda.
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

// The same tests against both engines: dynalite (the default) and Amazon DynamoDB Local.
describe.each(['dynalite', 'dynamodb-local'] as const)('DynamoDB handlers against %s', (kind) => {
  let engine: TestEngine;
  let admin: DynamoDBClient;

  beforeAll(async () => {
    engine = await sharedTestEngine(kind, TABLE);
    // The endpoint is what the local host substitutes for the real one.
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
    admin = new DynamoDBClient({});
  }, SHARED_ENGINE_HOOK_MS);

  afterAll(async () => {
    admin?.destroy();
    await engine?.stop();
  });

  async function scanAll(): Promise<string[]> {
    const out = await admin.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
    return (out.Items ?? []).map((i) => JSON.stringify(i)).sort();
  }

  it('201, then 409 for the same GovId without overwriting, then 200, then 404', async () => {
    const store = dynamoDbStoreFromEnv(localEnv('on'));
    const create = makeCreateHandler(store, 'dynamodb-create');
    const get = makeGetHandler(store, 'dynamodb-get');

    const first = await create(createEvent(samplePerson('AB-1001')));
    expect(first.statusCode).toBe(201);
    expect(bodyOf(first).person).toEqual(samplePerson('AB-1001'));

    const again = await create(createEvent({ ...samplePerson('AB-1001'), FirstName: 'Mallory' }));
    expect(again.statusCode).toBe(409);
    expect(bodyOf(again)).toMatchObject({ field: 'GovId', error: expect.stringContaining('AB-1001') });
    // One conditional PutItem, whose failure carries the stored item (ALL_OLD): no second
    // request, as in AWS, on either engine.
    expect(bodyOf(again).timing.dbRequests).toBe(1);

    const read = await get(getEvent('AB-1001'));
    expect(read.statusCode).toBe(200);
    expect(bodyOf(read).person).toEqual(samplePerson('AB-1001'));

    const missing = await get(getEvent('NOPE-404'));
    expect(missing.statusCode).toBe(404);
    expect(bodyOf(missing)).toMatchObject({ field: 'govId', error: expect.stringContaining('NOPE-404') });
  });

  it('records the capacity units each call was billed: returned by the engine, computed for a failed condition', async () => {
    // Every call asks ReturnConsumedCapacity TOTAL; a failed conditional write still consumes
    // write units but its exception carries no ConsumedCapacity, so DynamoDB's rule computes
    // them (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html).
    const store = dynamoDbStoreFromEnv(localEnv('on'));
    const create = makeCreateHandler(store, 'dynamodb-create');
    const get = makeGetHandler(store, 'dynamodb-get');
    const billed = (r: Awaited<ReturnType<typeof create>>) => bodyOf(r).timing.billed;
    // DynamoDB's TOTAL counts the by-type index's write too (1 + 1), as DynamoDB Local does;
    // dynalite counts the table's alone (a difference the README lists).
    expect(billed(await create(createEvent(samplePerson('CU-1001'))))).toEqual([
      { key: 'dynamodb.writeRequestUnits', quantity: kind === 'dynamodb-local' ? 2 : 1, basis: 'measured' },
    ]);
    expect(billed(await create(createEvent(samplePerson('CU-1001'))))).toEqual([
      { key: 'dynamodb.writeRequestUnits', quantity: 1, basis: 'computed' },
    ]);
    // A strongly consistent read of an item under 4 KB: 1 read unit, a miss too.
    expect(billed(await get(getEvent('CU-1001')))).toEqual([
      { key: 'dynamodb.readRequestUnits', quantity: 1, basis: 'measured' },
    ]);
    expect(billed(await get(getEvent('CU-NONE')))).toEqual([
      { key: 'dynamodb.readRequestUnits', quantity: 1, basis: 'measured' },
    ]);
    // A request refused before the database call was billed nothing.
    expect(billed(await get(getEvent('not a gov id!')))).toBeUndefined();
  });

  it('a create retried after its written answer was lost is a 201, not a 409 for its own write', async () => {
    // A proxy that delivers the first put to the engine but never returns its answer: the
    // SDK's request timeout fires and it retries on a new connection, which meets the item.
    const sockets: net.Socket[] = [];
    let connections = 0;
    const proxy = net.createServer((client) => {
      connections += 1;
      const swallowAnswer = connections === 1;
      const upstream = net.connect(Number(new URL(engine.endpoint).port), '127.0.0.1');
      sockets.push(client, upstream);
      client.pipe(upstream);
      if (!swallowAnswer) upstream.pipe(client);
      else upstream.resume();
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const http = createLabHttp('on');
      const endpoint = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const client = new DynamoDBClient({
        endpoint,
        requestHandler: http.handler,
        maxAttempts: MAX_ATTEMPTS,
      });
      const create = makeCreateHandler(createDynamoDbStore(client, TABLE, http), 'dynamodb-create');
      const r = await create(createEvent(samplePerson('RETRY-1')));
      expect(connections).toBe(2);
      expect(r.statusCode).toBe(201);
      // Two PutItem attempts, the second told its own item by ALL_OLD: no read, on either engine.
      expect(bodyOf(r).timing.dbRequests).toBe(2);
      // A different Person under the same GovId is still a conflict.
      const other = await create(createEvent({ ...samplePerson('RETRY-1'), FirstName: 'Mallory' }));
      expect(other.statusCode).toBe(409);
      client.destroy();
    } finally {
      for (const s of sockets) s.destroy();
      proxy.close();
    }
  });

  it('answers 400 with error and field for bad input, and writes nothing', async () => {
    const store = dynamoDbStoreFromEnv(localEnv('on'));
    const create = makeCreateHandler(store, 'dynamodb-create');
    const get = makeGetHandler(store, 'dynamodb-get');
    const before = await scanAll();
    const p = samplePerson('BAD-1');
    const cases: [unknown, string | undefined][] = [
      ['{"GovId": "x", ', undefined],
      ['', undefined],
      ['[]', undefined],
      ['"just a string"', undefined],
      ['null', undefined],
      [{ ...p, GovId: 42 }, 'GovId'],
      [{ ...p, GovId: '' }, 'GovId'],
      [{ ...p, GovId: 'x'.repeat(65) }, 'GovId'],
      [{ ...p, GovId: '../etc/passwd' }, 'GovId'],
      [{ ...p, GovId: 'ünïcode' }, 'GovId'],
      [{ ...p, FirstName: undefined }, 'FirstName'],
      [{ ...p, LastName: ['Lovelace'] }, 'LastName'],
      [{ ...p, FirstName: '   ' }, 'FirstName'],
      [{ ...p, FirstName: 'a'.repeat(101) }, 'FirstName'],
      [{ ...p, FirstName: 'Ada\u0000' }, 'FirstName'],
      [{ ...p, DOB: '1815-13-10' }, 'DOB'],
      [{ ...p, DOB: '10/12/1815' }, 'DOB'],
      [{ ...p, DOB: '1815-02-30' }, 'DOB'],
      [{ ...p, Address: 'x'.repeat(201) }, 'Address'],
      [{ ...p, GovIdType: null }, 'GovIdType'],
      [{ ...p, Admin: true }, 'Admin'],
      [JSON.stringify({ ...p, Address: 'x'.repeat(20_000) }), undefined],
    ];
    for (const [body, field] of cases) {
      const r = await create(createEvent(body));
      expect(r.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      const b = bodyOf(r);
      expect(typeof b.error).toBe('string');
      expect(b.field).toBe(field);
      expect(b.timing).toMatchObject({ dbMs: 0, newConnection: false });
    }
    const base64 = await create(
      apiEvent({
        method: 'POST',
        path: '/p',
        body: Buffer.from('{nope').toString('base64'),
        isBase64Encoded: true,
      }),
    );
    expect(base64.statusCode).toBe(400);
    for (const id of [undefined, '', 'a/b', 'x'.repeat(65), '%2e%2e']) {
      const r = await get(getEvent(id));
      expect(r.statusCode, String(id)).toBe(400);
      expect(bodyOf(r).field).toBe('govId');
    }
    expect(await scanAll()).toEqual(before);
  });

  it('Address is optional and a base64-encoded body is accepted', async () => {
    const create = makeCreateHandler(dynamoDbStoreFromEnv(localEnv('on')), 'dynamodb-create');
    const { Address: _omit, ...noAddress } = samplePerson('OPT-1');
    const r = await create(
      apiEvent({
        method: 'POST',
        path: '/p',
        body: Buffer.from(JSON.stringify(noAddress)).toString('base64'),
        isBase64Encoded: true,
      }),
    );
    expect(r.statusCode).toBe(201);
    expect(bodyOf(r).person).toEqual(noAddress);
  });

  it.each([
    ['off', 8, [true, true, true, true, true, true, true, true]],
    ['on', 1, [true, false, false, false, false, false, false, false]],
  ] as const)(
    'keep-alive %s: 8 sequential calls open %i connection(s)',
    async (keepAlive, sockets, newConnections) => {
      const store = dynamoDbStoreFromEnv(localEnv(keepAlive));
      const create = makeCreateHandler(store, 'dynamodb-create');
      const get = makeGetHandler(store, 'dynamodb-get');
      const seen: boolean[] = [];
      for (let i = 0; i < 4; i++) {
        const id = `KA-${keepAlive}-${i}`;
        const c = await create(createEvent(samplePerson(id)));
        expect(c.statusCode).toBe(201);
        seen.push(bodyOf(c).timing.newConnection);
        const g = await get(getEvent(id));
        expect(g.statusCode).toBe(200);
        seen.push(bodyOf(g).timing.newConnection);
        expect(bodyOf(g).timing.dbMs).toBeGreaterThan(0);
      }
      expect(store.socketsOpened()).toBe(sockets);
      expect(seen).toEqual(newConnections);
    },
  );
});

describe('database failures', () => {
  async function withServer(onConnection: (s: net.Socket) => void, fn: (endpoint: string) => Promise<void>) {
    const server = net.createServer(onConnection);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    try {
      await fn(`http://127.0.0.1:${port}`);
    } finally {
      server.close();
    }
  }

  const storeAt = (endpoint: string) => {
    const http = createLabHttp('on');
    const client = new DynamoDBClient({ endpoint, requestHandler: http.handler, maxAttempts: MAX_ATTEMPTS });
    return createDynamoDbStore(client, TABLE, http);
  };

  it('a database that accepts but never answers gets a 503 that says what failed, before the deadline', async () => {
    const held: net.Socket[] = [];
    await withServer(
      (s) => held.push(s),
      async (endpoint) => {
        const get = makeGetHandler(storeAt(endpoint), 'dynamodb-get');
        const started = Date.now();
        const r = await get(getEvent('HANG-1'));
        const elapsed = Date.now() - started;
        expect(r.statusCode).toBe(503);
        // Each attempt is cut by the request timeout, so the retries end before the overall deadline.
        expect(bodyOf(r).error).toMatch(/^DynamoDB get failed: TimeoutError/);
        // The request timeout fired on each attempt (TimeoutError, one socket per attempt), not the
        // overall deadline (its message would say "did not answer within").
        expect(elapsed).toBeGreaterThanOrEqual(MAX_ATTEMPTS * REQUEST_TIMEOUT_MS - 50);
        expect(bodyOf(r).error).not.toMatch(/did not answer within/);
        expect(held.length).toBe(MAX_ATTEMPTS);
      },
    );
    for (const s of held) s.destroy();
  });

  it('a refused connection is a 503 naming DynamoDB and the operation, and is logged', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const create = makeCreateHandler(storeAt(`http://127.0.0.1:${port}`), 'dynamodb-create');
    const r = await create(createEvent(samplePerson('DOWN-1')));
    expect(r.statusCode).toBe(503);
    expect(bodyOf(r).error).toMatch(/^DynamoDB create failed: .*ECONNREFUSED/);
    expect(errors).toHaveBeenCalledWith(expect.stringContaining('DynamoDB create failed'));
    errors.mockRestore();
  });
});

describe('timing block', () => {
  it('marks only the first invocation of an environment as cold and reports the init type', async () => {
    const engine = await sharedTestEngine('dynalite', TABLE);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
    vi.resetModules();
    vi.stubEnv('TABLE_NAME', TABLE);
    vi.stubEnv('KEEP_ALIVE', 'on');
    vi.stubEnv('LAB_FUNCTION', 'dynamodb-get');
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'provisioned-concurrency');
    const { get: handler } = await import('../../targets/dynamodb/handler');
    const first = bodyOf(await handler(getEvent('NOPE-1')));
    const second = bodyOf(await handler(getEvent('NOPE-2')));
    expect(first.timing).toMatchObject({
      coldStart: true,
      initType: 'provisioned-concurrency',
      newConnection: true,
    });
    expect(second.timing).toMatchObject({
      coldStart: false,
      initType: 'provisioned-concurrency',
      newConnection: false,
    });
    expect(Object.keys(first.timing).sort()).toEqual([
      'billed',
      'coldStart',
      'concurrency',
      'dbMs',
      'dbRequests',
      'dbRoundTrips',
      'environment',
      'initType',
      'newConnection',
    ]);
    // One GetItem is one HTTP request.
    expect(first.timing.dbRequests).toBe(1);
    expect(second.timing.dbRequests).toBe(1);
    await engine.stop();
  });

  it('records the invocations in flight in the environment: each of five overlapping calls sees those begun before it', async () => {
    const engine = await sharedTestEngine('dynalite', TABLE);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
    const get = makeGetHandler(dynamoDbStoreFromEnv(localEnv('on')), 'dynamodb-get');
    // Started in one tick, as an environment on Managed Instances takes invocations that overlap.
    const overlapping = await Promise.all(Array.from({ length: 5 }, (_, i) => get(getEvent(`NOPE-C${i}`))));
    const seen = overlapping.map((r) => bodyOf(r).timing.concurrency);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    for (const r of overlapping) expect(isTiming(bodyOf(r).timing)).toBe(true);
    // Every one left, the invalid request's included: the next call is alone again.
    const invalid = await get(apiEvent({ method: 'GET', path: '/person/', pathParameters: null }));
    expect(invalid.statusCode).toBe(400);
    expect(bodyOf(invalid).timing.concurrency).toBe(1);
    expect(bodyOf(await get(getEvent('NOPE-C5'))).timing.concurrency).toBe(1);
    await engine.stop();
  });

  it('a missing KEEP_ALIVE or TABLE_NAME fails the init with a clear message', async () => {
    expect(() => dynamoDbStoreFromEnv({ TABLE_NAME: TABLE })).toThrowError(
      'Environment variable KEEP_ALIVE is required but not set',
    );
    expect(() => dynamoDbStoreFromEnv({ TABLE_NAME: TABLE, KEEP_ALIVE: 'yes' })).toThrowError(
      /must be "on" or "off"/,
    );
    expect(() => dynamoDbStoreFromEnv({ KEEP_ALIVE: 'on' })).toThrowError(
      'Environment variable TABLE_NAME is required',
    );
  });
});

describe('function identity', () => {
  it('the entry fails its init with a clear message when LAB_FUNCTION is missing', async () => {
    const engine = await sharedTestEngine('dynalite', TABLE);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
    vi.stubEnv('TABLE_NAME', TABLE);
    vi.stubEnv('KEEP_ALIVE', 'on');
    vi.resetModules();
    vi.stubEnv('LAB_FUNCTION', undefined);
    await expect(import('../../targets/dynamodb/handler')).rejects.toThrowError(
      'Environment variable LAB_FUNCTION is required but not set',
    );
    vi.resetModules();
    vi.stubEnv('LAB_FUNCTION', 'dynamodb-get-keepalive-on');
    const { get } = await import('../../targets/dynamodb/handler');
    expect((await get(getEvent('NOPE-ID-1'))).statusCode).toBe(404);
    await engine.stop();
  });
});
