/**
 * The valkey target's client against its real local server behind the network model's TLS:
 * the handlers answer as every target's do (201/409/200/404, 400 before anything is sent, the
 * timing block counted by the client), every key lands under the hash tag in one slot, the IAM
 * token is a presigned `connect` for the cache and the user, reused until it nears expiry, and
 * each command's bytes are metered for ECPUs by the pricing page's rule.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../../core/paths';
import {
  makeCreateHandler,
  makeGetHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../../lambda/shared/handlers';
import {
  type NetworkModelProcess,
  startNetworkModelProcess,
} from '../../../local/network/network-model-process';
import { ensureCertificates } from '../../../local/tls/certificates';
import { KEY_PREFIX, valkeyUserId } from '../../../targets/valkey/access';
import { ecpusOf } from '../../../targets/valkey/cost';
import { ADMIN_USER, startValkey, type ValkeyEngine } from '../../../targets/valkey/engine';
import { BYTES_PER_ECPU, VALKEY_ECPU_BYTES, VALKEY_TRANSFER_BYTES } from '../../../targets/valkey/meter-keys';
import prices from '../../../targets/valkey/prices.json' with { type: 'json' };
import {
  createValkeyStore,
  requestBytes,
  respBytes,
  type ValkeyPersonStore,
} from '../../../targets/valkey/store';
import { TOKEN_LIFETIME_S, type ValkeyTokenSource, valkeyTokenSource } from '../../../targets/valkey/token';
import {
  bodyOf,
  createEvent,
  getEvent,
  overwriteEvent,
  queryEvent,
  samplePerson,
  updateEvent,
} from '../../support/events';

const USER = valkeyUserId('LatencyLab-Data');
const PASSWORD = 'valkey-store-admin';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

let engine: ValkeyEngine;
let model: NetworkModelProcess;
let ca: Buffer;
let admin: Redis;
const stores: ValkeyPersonStore[] = [];

const tokens = (now?: () => number): ValkeyTokenSource =>
  valkeyTokenSource({
    cacheName: 'latencylab-data-valkey',
    userId: USER,
    region: 'us-east-1',
    credentials: CREDENTIALS,
    now,
  });

function environmentStore(keepAlive: 'on' | 'off', source: ValkeyTokenSource = tokens()): ValkeyPersonStore {
  const s = createValkeyStore({
    host: 'localhost',
    port: model.port,
    userId: USER,
    tokens: source,
    keepAlive,
    tls: { ca },
  });
  stores.push(s);
  return s;
}

const billed = (s: ValkeyPersonStore, key: string) => s.billed?.().get(key)?.quantity ?? 0;

beforeAll(async () => {
  const certs = await ensureCertificates(join(CACHE_DIR, 'tls'));
  ca = await readFile(certs.caCertPath);
  engine = await startValkey({ user: USER, password: PASSWORD });
  model = await startNetworkModelProcess({
    upstreamHost: '127.0.0.1',
    upstreamPort: engine.port,
    rttMs: 0,
    tls: certs,
  });
  admin = new Redis({
    host: '127.0.0.1',
    port: engine.port,
    username: ADMIN_USER,
    password: PASSWORD,
    lazyConnect: true,
  });
  await admin.connect();
}, 60_000);
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
afterAll(async () => {
  admin?.disconnect();
  await model?.close();
  await engine?.stop();
});

describe.each(['on', 'off'] as const)('valkey handlers with keep-alive %s', (keepAlive) => {
  it('201, 409 without overwriting, 200, 404, with the timing block the client counted', async () => {
    const store = environmentStore(keepAlive);
    const create = makeCreateHandler(store, 'valkey-create');
    const get = makeGetHandler(store, 'valkey-get');
    const id = `VS-${keepAlive}-1`;

    const first = await create(createEvent(samplePerson(id)));
    expect(first.statusCode).toBe(201);
    expect(bodyOf(first).timing).toMatchObject({
      newConnection: true,
      // AUTH with the token + EVAL, and QUIT when the connection is not kept.
      dbRequests: keepAlive === 'on' ? 2 : 3,
    });
    const second = await create(createEvent({ ...samplePerson(id), FirstName: 'Other' }));
    expect(second.statusCode).toBe(409);
    // Stored under the hash tag: every key of the target in one slot of the cluster-mode cache.
    expect(JSON.parse((await admin.get(`${KEY_PREFIX}person:${id}`)) ?? '{}').FirstName).toBe('Ada');
    expect(await admin.exists(`person:${id}`)).toBe(0);

    const found = await get(getEvent(id));
    expect(found.statusCode).toBe(200);
    expect(bodyOf(found).person).toEqual(samplePerson(id));
    expect(bodyOf(found).timing).toMatchObject(
      keepAlive === 'on' ? { newConnection: false, dbRequests: 1 } : { newConnection: true, dbRequests: 3 },
    );
    expect((await get(getEvent(`VS-${keepAlive}-none`))).statusCode).toBe(404);
  });

  it('400 for a bad body or a missing query parameter, with nothing sent', async () => {
    const store = environmentStore(keepAlive);
    const sent = store.requestsSent();
    expect((await makeCreateHandler(store, 'valkey-create')(createEvent('{'))).statusCode).toBe(400);
    expect((await makeQueryHandler(store, 'valkey-query')(queryEvent(null))).statusCode).toBe(400);
    expect(store.requestsSent()).toBe(sent);
  });

  it('overwrites, updates and lists the newest of a type through the scripts and MGET in one slot', async () => {
    const store = environmentStore(keepAlive);
    const type = `Type${keepAlive}`;
    const create = makeCreateHandler(store, 'valkey-create');
    for (const n of [1, 2, 3]) {
      expect(
        (await create(createEvent({ ...samplePerson(`VQ-${keepAlive}-${n}`), GovIdType: type }))).statusCode,
      ).toBe(201);
    }
    const replaced = await makeOverwriteHandler(
      store,
      'valkey-overwrite',
    )(
      overwriteEvent(`VQ-${keepAlive}-1`, {
        ...samplePerson(`VQ-${keepAlive}-1`),
        GovIdType: type,
        FirstName: 'Bea',
      }),
    );
    expect(replaced.statusCode).toBe(200);
    const updated = await makeUpdateHandler(
      store,
      'valkey-update',
    )(updateEvent(`VQ-${keepAlive}-2`, { Address: '2 Main St' }));
    expect(bodyOf(updated).person).toMatchObject({ Address: '2 Main St' });
    const listed = await makeQueryHandler(store, 'valkey-query')(queryEvent({ govIdType: type }));
    expect(listed.statusCode).toBe(200);
    // The overwrite is a re-creation: newest first.
    expect((bodyOf(listed).persons as { GovId: string }[]).map((p) => p.GovId)).toEqual([
      `VQ-${keepAlive}-1`,
      `VQ-${keepAlive}-3`,
      `VQ-${keepAlive}-2`,
    ]);
  });
});

describe('the IAM token', () => {
  it('is a presigned connect for the cache and the user, signed for elasticache, valid 15 minutes', async () => {
    const token = await tokens(() => Date.UTC(2026, 10, 28, 12, 0, 0)).token();
    // https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/auth-iam.html: the presigned URL
    // of GET http://<cache>/?Action=connect&User=<user>&ResourceType=ServerlessCache, without "http://".
    expect(token.startsWith('latencylab-data-valkey/?')).toBe(true);
    const query = new URLSearchParams(token.slice(token.indexOf('?') + 1));
    expect(query.get('Action')).toBe('connect');
    expect(query.get('User')).toBe(USER);
    expect(query.get('ResourceType')).toBe('ServerlessCache');
    expect(query.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(query.get('X-Amz-Credential')).toBe('local/20261128/us-east-1/elasticache/aws4_request');
    expect(query.get('X-Amz-Expires')).toBe(String(TOKEN_LIFETIME_S));
    expect(query.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is signed once while valid and again shortly before it expires, before the call that needs it', async () => {
    let now = Date.UTC(2026, 10, 28, 12, 0, 0);
    const source = tokens(() => now);
    const store = environmentStore('off', source);
    await store.get('VT-none', AbortSignal.timeout(5000));
    await store.get('VT-none', AbortSignal.timeout(5000));
    expect(source.signed()).toBe(1);
    const first = source.current();
    now += (TOKEN_LIFETIME_S - 30) * 1000;
    await store.get('VT-none', AbortSignal.timeout(5000));
    expect(source.signed()).toBe(2);
    expect(source.current()).not.toBe(first);
  });
});

describe('ECPU metering', () => {
  it('counts a command as its RESP bytes both ways, each at least 1 KB, over the pricing page’s 1 KB per ECPU', async () => {
    expect(requestBytes('GET', ['k'])).toBe(Buffer.byteLength('*2\r\n$3\r\nGET\r\n$1\r\nk\r\n'));
    expect(respBytes(null)).toBe(5);
    expect(respBytes('abc')).toBe(9);
    expect(BYTES_PER_ECPU).toBe(prices.metering.bytesPerEcpu);

    const store = environmentStore('on');
    await makeCreateHandler(store, 'valkey-create')(createEvent(samplePerson('VM-1')));
    const before = { transfer: billed(store, VALKEY_TRANSFER_BYTES), ecpu: billed(store, VALKEY_ECPU_BYTES) };
    await store.get('VM-1', AbortSignal.timeout(5000));
    const json = (await admin.get(`${KEY_PREFIX}person:VM-1`)) ?? '';
    const expected = requestBytes('get', [`${KEY_PREFIX}person:VM-1`]) + respBytes(json);
    expect(billed(store, VALKEY_TRANSFER_BYTES) - before.transfer).toBe(expected);
    // A small GET bills as 1 KB: one ECPU.
    expect(billed(store, VALKEY_ECPU_BYTES) - before.ecpu).toBe(BYTES_PER_ECPU);

    // A value of 3.2 KB read back: 3.2 ECPUs and a little (the request and framing), as the page's example.
    const big = 'x'.repeat(3277);
    await admin.set(`${KEY_PREFIX}person:VM-big`, JSON.stringify({ GovId: 'VM-big', FirstName: big }));
    const at = billed(store, VALKEY_ECPU_BYTES);
    await store.get('VM-big', AbortSignal.timeout(5000));
    const ecpus = ecpusOf(new Map([[VALKEY_ECPU_BYTES, billed(store, VALKEY_ECPU_BYTES) - at]]), {
      bytesPerEcpu: prices.metering.bytesPerEcpu,
    });
    expect(ecpus).toBeGreaterThan(3.2);
    expect(ecpus).toBeLessThan(3.4);
  });
});
