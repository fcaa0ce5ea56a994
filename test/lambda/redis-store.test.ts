import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EnvError } from '../../lambda/shared/env';
import { DB_DEADLINE_MS, REQUEST_TIMEOUT_MS } from '../../lambda/shared/http-client';
import type { Person } from '../../lambda/shared/person';
import { readSecretViaExtension } from '../../lambda/shared/secrets-extension';
import { measureDb } from '../../lambda/shared/timing-meter';
import { startNetworkModel } from '../../local/network/network-model';
import { ensureCertificates } from '../../local/tls/certificates';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import { type ExtensionStandIn, startExtensionStandIn } from '../../targets/redis/local';
import { parseRedisUrl, redisUrlFromSecretString } from '../../targets/redis/secret';
import {
  byTypeKey,
  createRedisStore,
  HANDSHAKE_TIMEOUT_MS,
  personKey,
  type RedisPersonStore,
  redisStoreFromEnv,
  SCRIPTS,
  scriptFor,
  supportsKeyLocking,
  UPDATE_SCRIPT,
  VIEWS_KEY,
} from '../../targets/redis/store';
import { samplePerson } from '../support/events';

const PASSWORD = 'lab-test-password';
const deadline = (): AbortSignal => AbortSignal.timeout(DB_DEADLINE_MS);
const person = (govId: string, firstName = 'Ada'): Person => ({
  ...samplePerson(govId),
  FirstName: firstName,
});

let engine: RedisEngine;
let admin: Redis;
const stores: RedisPersonStore[] = [];

function store(keepAlive: 'on' | 'off', url = engine.url): RedisPersonStore {
  const s = createRedisStore({ target: parseRedisUrl(url, 'test'), keepAlive });
  stores.push(s);
  return s;
}

async function connectionsReceived(): Promise<number> {
  const info = await admin.info('stats');
  return Number(/total_connections_received:(\d+)/.exec(info)?.[1]);
}

/** A TCP server that accepts and never answers: a hung database. */
async function startHungServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A TCP relay to redis we can break: `frozen` stops bytes both ways with the sockets open;
 * `next` sabotages the next chunk a client sends on an open connection: 'drop-before' resets
 * the connection without forwarding it, 'drop-after' forwards it and resets before the reply.
 */
interface Relay {
  frozen: boolean;
  next: 'drop-before' | 'drop-after' | undefined;
  url(password: string): string;
  close(): Promise<void>;
}

async function startRelay(upstreamPort: number): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(upstreamPort, '127.0.0.1');
    track(client);
    track(upstream);
    client.on('data', (chunk) => {
      if (relay.frozen) return;
      const sabotage = relay.next;
      relay.next = undefined;
      if (sabotage === 'drop-before') return client.resetAndDestroy();
      upstream.write(chunk);
      // Reset once the server has had time to apply the command; its reply is dropped.
      if (sabotage === 'drop-after') {
        upstream.pause();
        setTimeout(() => client.resetAndDestroy(), 50);
      }
    });
    upstream.on('data', (chunk) => relay.frozen || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const relay: Relay = {
    frozen: false,
    next: undefined,
    url: (password) => `redis://default:${password}@127.0.0.1:${port}`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return relay;
}

beforeAll(async () => {
  engine = await startRedis({ password: PASSWORD });
  admin = new Redis({ port: engine.port, host: '127.0.0.1', password: PASSWORD, lazyConnect: true });
  await admin.connect();
  // A Person every read test can find, whatever runs before it.
  await admin.set(personKey('RS-SEED'), JSON.stringify(person('RS-SEED')));
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
afterAll(async () => {
  admin?.disconnect();
  await engine?.stop();
});

describe('Redis store semantics against a real redis-server', () => {
  it('creates once, answers exists without overwriting, and indexes the GovId by type', async () => {
    const s = store('on');
    const before = Date.now();
    expect(await s.create(person('RS-1', 'Ada'), deadline())).toBe('created');
    expect(await s.create(person('RS-1', 'Grace'), deadline())).toBe('exists');
    expect(await s.get('RS-1', deadline())).toEqual(person('RS-1', 'Ada'));
    expect(JSON.parse((await admin.get(personKey('RS-1'))) ?? 'null')).toEqual(person('RS-1', 'Ada'));
    const score = Number(await admin.zscore(byTypeKey('Passport'), 'RS-1'));
    expect(score).toBeGreaterThanOrEqual(before);
    expect(score).toBeLessThanOrEqual(Date.now());
  });

  it('get answers undefined for a GovId never created', async () => {
    expect(await store('off').get('RS-missing', deadline())).toBeUndefined();
  });

  it('20 concurrent creates of one GovId from 20 environments: exactly one created, its value kept', async () => {
    const contenders = Array.from({ length: 20 }, (_, i) => ({
      store: store(i % 2 === 0 ? 'on' : 'off'),
      person: person('RS-RACE', `Name${i}`),
    }));
    const results = await Promise.all(contenders.map((c) => c.store.create(c.person, deadline())));
    const winners = results.flatMap((r, i) => (r === 'created' ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r === 'exists')).toHaveLength(19);
    const stored = await store('off').get('RS-RACE', deadline());
    expect(stored).toEqual(contenders[winners[0]].person);
    expect(await admin.zcard(byTypeKey('Passport'))).toBeGreaterThanOrEqual(1);
    expect(await admin.zscore(byTypeKey('Passport'), 'RS-RACE')).not.toBeNull();
  });
});

describe('scripts declare every key they touch (Upstash locks only the KEYS of a flagged script)', () => {
  let users = 0;
  /**
   * A connection as an ACL user that may touch exactly `keys`: a command or a script reaching
   * any other key fails with NOPERM (Redis checks a script's calls against its caller's ACL:
   * https://redis.io/docs/latest/operate/oss_and_stack/management/security/acl/).
   */
  async function keysOnly(keys: readonly string[]): Promise<Redis> {
    users += 1;
    const user = `keys-only-${users}`;
    await admin.call(
      'ACL',
      'SETUSER',
      user,
      'on',
      `>${PASSWORD}`,
      'resetkeys',
      ...keys.map((k) => `~${k}`),
      '+@all',
    );
    const client = new Redis({ port: engine.port, host: '127.0.0.1', username: user, password: PASSWORD });
    client.on('error', () => {});
    return client;
  }
  const json = (govId: string, type: string) => JSON.stringify({ ...person(govId), GovIdType: type });

  it('runs each script with only its KEYS reachable', async () => {
    const id = 'RS-KEYS-1';
    const [p, passport, ssn, views] = [personKey(id), byTypeKey('Passport'), byTypeKey('SSN'), VIEWS_KEY];
    const run = async (keys: string[], script: string, args: string[]) => {
      const client = await keysOnly(keys);
      try {
        return await client.eval(script, keys.length, ...keys, ...args);
      } finally {
        client.disconnect();
      }
    };
    expect(await run([p, passport], SCRIPTS.create, [json(id, 'Passport'), '1', id])).toBe(1);
    expect(JSON.parse(String(await run([p], SCRIPTS.update, ['1 Main St'])))).toMatchObject({
      Address: '1 Main St',
    });
    // A view: the record and its new count; none for a Person that is not there.
    const [viewed, count] = (await run([p, views], SCRIPTS.view, [id])) as [string, string];
    expect(JSON.parse(viewed)).toMatchObject({ GovId: id, Address: '1 Main St' });
    expect(count).toBe('1');
    expect(await run([personKey('RS-KEYS-none'), views], SCRIPTS.view, ['RS-KEYS-none'])).toBeNull();
    expect(await admin.zscore(views, 'RS-KEYS-none')).toBeNull();
    // Same type: KEYS[3] is KEYS[2]; one round trip. The overwrite starts the count again.
    expect(
      await run([p, passport, passport, views], SCRIPTS.overwrite, [
        json(id, 'Passport'),
        '2',
        id,
        'Passport',
      ]),
    ).toBe(1);
    expect(await admin.zscore(views, id)).toBeNull();
    // A new type while the caller believes it unchanged: the stored type comes back, nothing written.
    expect(await run([p, ssn, ssn, views], SCRIPTS.overwrite, [json(id, 'SSN'), '3', id, 'SSN'])).toBe(
      'Passport',
    );
    expect(await admin.zscore(ssn, id)).toBeNull();
    // Sent again with the stored type's set declared: moved.
    expect(
      await run([p, ssn, passport, views], SCRIPTS.overwrite, [json(id, 'SSN'), '4', id, 'Passport']),
    ).toBe(1);
    expect(await admin.zscore(passport, id)).toBeNull();
    expect(await admin.zscore(ssn, id)).toBe('4');
    expect(
      await run([personKey('RS-KEYS-none'), ssn, ssn, views], SCRIPTS.overwrite, ['{}', '5', 'x', 'SSN']),
    ).toBe(0);
  });

  it('the check can fail: a script that builds a key inside is refused', async () => {
    const client = await keysOnly([personKey('RS-KEYS-2')]);
    try {
      const built = "return redis.call('GET', ARGV[1] .. 'RS-KEYS-2-other')";
      await expect(client.eval(built, 1, personKey('RS-KEYS-2'), personKey(''))).rejects.toThrow(
        /NOPERM|can.t access/,
      );
    } finally {
      client.disconnect();
    }
  });

  it("runs the store's every operation as a user that may touch one Person, its two types and the view counts only", async () => {
    const id = 'RS-KEYS-3';
    const keys = [personKey(id), byTypeKey('KeysA'), byTypeKey('KeysB'), VIEWS_KEY];
    (await keysOnly(keys)).disconnect();
    const s = createRedisStore({
      target: {
        host: '127.0.0.1',
        port: engine.port,
        username: `keys-only-${users}`,
        password: PASSWORD,
        tls: false,
      },
      keepAlive: 'on',
    });
    stores.push(s);
    const p = { ...person(id), GovIdType: 'KeysA' };
    expect(await s.create(p, deadline())).toBe('created');
    expect(await s.get(id, deadline())).toEqual(p);
    expect(await s.update(id, { Address: 'Elsewhere' }, deadline())).toMatchObject({ Address: 'Elsewhere' });
    const sent = s.requestsSent();
    expect(await s.overwrite({ ...p, GovIdType: 'KeysB' }, deadline())).toBe('replaced');
    // The type changed: the second round trip declared the old type's set.
    expect(s.requestsSent() - sent).toBe(2);
    expect(await s.query('KeysB', 10, deadline())).toEqual([{ ...p, GovIdType: 'KeysB' }]);
    expect(await s.query('KeysA', 10, deadline())).toEqual([]);
    expect(await s.view(id, deadline())).toEqual({ person: { ...p, GovIdType: 'KeysB' }, views: 1 });
    expect((await s.top10(deadline())).find((x) => x.person.GovId === id)?.views).toBe(1);
  });

  it('adds the allow-key-locking flag only for Upstash: Redis 7.0 refuses it', async () => {
    expect(supportsKeyLocking('eu1-lab-12345.upstash.io')).toBe(true);
    expect(supportsKeyLocking('127.0.0.1')).toBe(false);
    expect(supportsKeyLocking('redis.example.com')).toBe(false);
    expect(scriptFor(UPDATE_SCRIPT, true)).toBe(`#!lua flags=allow-key-locking\n${UPDATE_SCRIPT}`);
    expect(scriptFor(UPDATE_SCRIPT, false)).toBe(UPDATE_SCRIPT);
    for (const body of Object.values(SCRIPTS)) {
      await expect(admin.eval(scriptFor(body, true), 0)).rejects.toThrow(
        /Unexpected flag in script shebang: allow-key-locking/,
      );
    }
  });
});

describe('SNI on rediss://', () => {
  it('sends the host name as the TLS server name, and no name for an IP address', async () => {
    const certDir = await mkdtemp(join(tmpdir(), 'redis-sni-'));
    const certs = await ensureCertificates(certDir);
    const seen: (string | false)[] = [];
    // A TLS front that records the client's server name and relays to the engine.
    const server = tls.createServer(
      { cert: await readFile(certs.certPath), key: await readFile(certs.keyPath) },
      (socket) => {
        seen.push((socket as tls.TLSSocket & { servername: string | false }).servername);
        const upstream = net.connect(engine.port, '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const ca = await readFile(certs.caCertPath, 'utf8');
    try {
      for (const host of ['localhost', '127.0.0.1']) {
        const s = createRedisStore({
          target: parseRedisUrl(`rediss://default:${PASSWORD}@${host}:${port}`, 'test'),
          keepAlive: 'off',
          tls: { ca },
        });
        stores.push(s);
        expect(await s.get('RS-SEED', deadline())).toEqual(person('RS-SEED'));
      }
      expect(seen).toEqual(['localhost', false]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(certDir, { recursive: true, force: true });
    }
  });
});

describe('connections and commands per call', () => {
  it('keep-alive off: N sequential calls open N connections, each AUTH + command + QUIT', async () => {
    const s = store('off');
    const received = await connectionsReceived();
    const n = 5;
    for (let i = 0; i < n; i++) {
      const sent = s.requestsSent();
      const m = await measureDb(s, () => s.get('RS-SEED', deadline()));
      expect(m.outcome.ok).toBe(true);
      expect(m.newConnection).toBe(true);
      expect(s.requestsSent() - sent).toBe(3);
    }
    expect(s.socketsOpened()).toBe(n);
    expect((await connectionsReceived()) - received).toBe(n);
  });

  it('keep-alive on: N sequential calls share 1 connection; only the first pays AUTH', async () => {
    const s = store('on');
    const received = await connectionsReceived();
    const perCall: number[] = [];
    const newConnection: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      const sent = s.requestsSent();
      const m = await measureDb(s, () => s.create(person(`RS-KA-${i}`), deadline()));
      expect(m.outcome).toEqual({ ok: true, value: 'created' });
      perCall.push(s.requestsSent() - sent);
      newConnection.push(m.newConnection);
    }
    expect(perCall).toEqual([2, 1, 1, 1, 1]);
    expect(newConnection).toEqual([true, false, false, false, false]);
    expect(s.socketsOpened()).toBe(1);
    expect((await connectionsReceived()) - received).toBe(1);
  });

  it('a connection the server closed while idle is replaced: the call succeeds on a new one', async () => {
    const idle = await startRedis({ password: PASSWORD, idleTimeoutS: 1 });
    try {
      const s = store('on', idle.url);
      expect(await s.create(person('RS-IDLE'), deadline())).toBe('created');
      await sleep(2_500); // the server's idle timeout (1 s) plus its once-a-second check
      const m = await measureDb(s, () => s.get('RS-IDLE', deadline()));
      expect(m.outcome).toEqual({ ok: true, value: person('RS-IDLE') });
      expect(m.newConnection).toBe(true);
      expect(s.socketsOpened()).toBe(2);
    } finally {
      await idle.stop();
    }
  });
});

describe('faults: every call ends within its bounds', () => {
  it('a stopped server: a kept connection and a new one both fail fast', async () => {
    const doomed = await startRedis({ password: PASSWORD });
    const on = store('on', doomed.url);
    const off = store('off', doomed.url);
    expect(await on.create(person('RS-DOOMED'), deadline())).toBe('created');
    await doomed.stop();
    // The refusal itself is the event: neither call waits for a timeout (that would say "timed out").
    for (const s of [on, off]) {
      await expect(s.get('RS-DOOMED', deadline())).rejects.toThrow(/ECONNREFUSED|Connection is closed/);
    }
  });

  it('a server that accepts and never answers: connect + AUTH gives up after HANDSHAKE_TIMEOUT_MS', async () => {
    const hung = await startHungServer();
    try {
      const s = store('off', `redis://default:${PASSWORD}@127.0.0.1:${hung.port}`);
      const started = Date.now();
      await expect(s.get('RS-SEED', deadline())).rejects.toThrow(/did not complete within|timed out/);
      const elapsed = Date.now() - started;
      // Not before the bound; after it with 3x slack (a loaded machine is slow, never early).
      expect(elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(elapsed).toBeLessThan(3 * HANDSHAKE_TIMEOUT_MS);
    } finally {
      await hung.close();
    }
  });

  it('the caller deadline wins over every other timeout', async () => {
    const hung = await startHungServer();
    try {
      const s = store('on', `redis://default:${PASSWORD}@127.0.0.1:${hung.port}`);
      const deadlineMs = 300;
      const started = Date.now();
      await expect(s.create(person('RS-SEED'), AbortSignal.timeout(deadlineMs))).rejects.toThrow(
        /timeout|abort/i,
      );
      // The 300 ms deadline, not the 2 s request timeout, ended it (3x slack).
      expect(Date.now() - started).toBeLessThan(3 * deadlineMs);
    } finally {
      await hung.close();
    }
  });

  it('a kept connection that stops answering mid-command times out, and the next call reconnects', async () => {
    const relay = await startRelay(engine.port);
    try {
      const s = store('on', relay.url(PASSWORD));
      expect(await s.get('RS-SEED', deadline())).toEqual(person('RS-SEED', 'Ada'));
      relay.frozen = true;
      await expect(s.get('RS-SEED', deadline())).rejects.toThrow(/timed out/);
      relay.frozen = false;
      const m = await measureDb(s, () => s.get('RS-SEED', deadline()));
      expect(m.outcome).toEqual({ ok: true, value: person('RS-SEED', 'Ada') });
      expect(m.newConnection).toBe(true);
    } finally {
      await relay.close();
    }
  });

  // What a Lambda environment thawed after the server closed its idle connection sees: the
  // connection still looks ready, and the command's write is what finds it dead.
  it('a kept connection found dead on write: one retry on a new connection', async () => {
    const relay = await startRelay(engine.port);
    try {
      const s = store('on', relay.url(PASSWORD));
      expect(await s.get('RS-SEED', deadline())).toEqual(person('RS-SEED', 'Ada'));
      relay.next = 'drop-before';
      const sent = s.requestsSent();
      const m = await measureDb(s, () => s.get('RS-SEED', deadline()));
      expect(m.outcome).toEqual({ ok: true, value: person('RS-SEED', 'Ada') });
      expect(m.newConnection).toBe(true);
      expect(s.requestsSent() - sent).toBe(3); // the lost GET, then AUTH + GET
      expect(s.socketsOpened()).toBe(2);
    } finally {
      await relay.close();
    }
  });

  it('a create whose reply was lost with its connection is retried and still reports created', async () => {
    const relay = await startRelay(engine.port);
    try {
      const s = store('on', relay.url(PASSWORD));
      expect(await s.get('RS-SEED', deadline())).toEqual(person('RS-SEED', 'Ada'));
      relay.next = 'drop-after'; // the server applies the EVAL, its reply never arrives
      expect(await s.create(person('RS-LOST-REPLY'), deadline())).toBe('created');
      expect(s.socketsOpened()).toBe(2);
      // Someone else's create of the same GovId still answers exists.
      expect(await s.create(person('RS-LOST-REPLY', 'Other'), deadline())).toBe('exists');
      expect(await s.get('RS-LOST-REPLY', deadline())).toEqual(person('RS-LOST-REPLY'));
    } finally {
      await relay.close();
    }
  });

  it('a wrong password fails the call with the server error, never showing the password', async () => {
    const s = store('off', `redis://default:not-the-password@127.0.0.1:${engine.port}`);
    const error = await s.get('RS-SEED', deadline()).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/WRONGPASS|invalid username-password/);
    expect(error?.message).not.toContain('not-the-password');
  });
});

describe('TLS through the lab network model (rediss://, certificate verified)', () => {
  let certDir: string;
  let model: Awaited<ReturnType<typeof startNetworkModel>>;
  let ca: string;

  beforeAll(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'redis-tls-'));
    const certs = await ensureCertificates(certDir);
    ca = await readFile(certs.caCertPath, 'utf8');
    model = await startNetworkModel({
      upstreamHost: '127.0.0.1',
      upstreamPort: engine.port,
      rttMs: 4,
      tls: certs,
    });
  });
  afterAll(async () => {
    await model?.close();
    await rm(certDir, { recursive: true, force: true });
  });

  const tlsUrl = (): string => `rediss://default:${PASSWORD}@127.0.0.1:${model.port}`;

  it('creates and reads over TLS; keep-alive saves the connect, TLS and AUTH round trips', async () => {
    const on = createRedisStore({ target: parseRedisUrl(tlsUrl(), 'test'), keepAlive: 'on', tls: { ca } });
    const off = createRedisStore({ target: parseRedisUrl(tlsUrl(), 'test'), keepAlive: 'off', tls: { ca } });
    stores.push(on, off);
    expect(await on.create(person('RS-TLS'), deadline())).toBe('created');
    const roundTrips = { on: [] as number[], off: [] as number[] };
    for (let i = 0; i < 5; i++) {
      for (const [name, s] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const m = await measureDb(s, () => s.get('RS-TLS', deadline()));
        expect(m.outcome).toEqual({ ok: true, value: person('RS-TLS') });
        roundTrips[name].push(m.dbRoundTrips);
      }
    }
    expect(on.socketsOpened()).toBe(1);
    expect(off.socketsOpened()).toBe(5);
    // Counted by the client, not timed: a kept connection sends the GET alone; a new one also
    // pays AUTH (and QUIT) on top of its TCP and TLS set-up.
    expect(roundTrips.on).toEqual([1, 1, 1, 1, 1]);
    for (const n of roundTrips.off) expect(n).toBeGreaterThanOrEqual(2);
  });

  it('refuses a server certificate it cannot verify', async () => {
    const s = createRedisStore({ target: parseRedisUrl(tlsUrl(), 'test'), keepAlive: 'off' });
    stores.push(s);
    await expect(s.get('RS-TLS', deadline())).rejects.toThrow(/certificate/i);
  });
});

describe('redisStoreFromEnv: the URL from Secrets Manager, through the extension', () => {
  const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:redis-url-AbCdEf';
  let extension: ExtensionStandIn;
  let secretString = '';

  beforeAll(async () => {
    // The lab's stand-in for the Parameters and Secrets extension: GET, token checked.
    extension = await startExtensionStandIn((id) => (id === ARN ? secretString : undefined), 'test-token');
  });
  afterAll(async () => {
    await extension?.close();
  });

  const env = (): NodeJS.ProcessEnv => ({
    REDIS_SECRET_ARN: ARN,
    KEEP_ALIVE: 'off',
    AWS_SESSION_TOKEN: 'test-token',
    PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(extension.port),
  });

  it.each([
    ['the URL itself', (url: string) => url],
    ['JSON {"url": ...}', (url: string) => JSON.stringify({ url })],
  ])('reads %s and connects with it', async (_name, shape) => {
    secretString = shape(engine.url);
    const before = extension.served();
    const s = await redisStoreFromEnv(env());
    stores.push(s);
    expect(extension.served()).toBe(before + 1);
    expect(await s.get('RS-SEED', deadline())).toEqual(person('RS-SEED', 'Ada'));
  });

  it('fails fast on a missing variable, and on a bad URL without printing the password', async () => {
    await expect(redisStoreFromEnv({ ...env(), REDIS_SECRET_ARN: undefined })).rejects.toThrow(
      /REDIS_SECRET_ARN is required/,
    );
    await expect(redisStoreFromEnv({ ...env(), KEEP_ALIVE: 'maybe' })).rejects.toThrow(/KEEP_ALIVE/);
    await expect(redisStoreFromEnv({ ...env(), AWS_SESSION_TOKEN: undefined })).rejects.toThrow(
      /AWS_SESSION_TOKEN is required/,
    );
    secretString = 'https://default:s3cret-pw@example.invalid:6379';
    const error = await redisStoreFromEnv(env()).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(EnvError);
    expect(error?.message).toMatch(/redis:\/\/ or rediss:\/\//);
    expect(error?.message).not.toContain('s3cret-pw');
  });

  it('a wrong token, an unknown secret and a silent extension each fail with what went wrong', async () => {
    secretString = engine.url;
    await expect(redisStoreFromEnv({ ...env(), AWS_SESSION_TOKEN: 'wrong' })).rejects.toThrow(/answered 401/);
    await expect(
      redisStoreFromEnv({ ...env(), REDIS_SECRET_ARN: `${ARN.slice(0, -6)}ZZZZZZ` }),
    ).rejects.toThrow(/answered 400 .*ResourceNotFoundException/);
    const hung = await startHungServer();
    try {
      // The extension's wait; the read must end within it, with 3x slack (1950 ms, under the 2 s it had).
      const waitMs = 650;
      const t = performance.now();
      const error = await readSecretViaExtension(
        ARN,
        { ...env(), PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(hung.port) },
        waitMs,
      ).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/did not answer .* within 650 ms/);
      expect(performance.now() - t).toBeLessThan(3 * waitMs);
    } finally {
      await hung.close();
    }
  });
});

describe('parsing the Redis URL', () => {
  it('reads host, port, user, password and TLS', () => {
    expect(parseRedisUrl('rediss://default:p%40ss@eu1-x.upstash.io:6380', 'x')).toEqual({
      host: 'eu1-x.upstash.io',
      port: 6380,
      username: 'default',
      password: 'p@ss',
      tls: true,
    });
    expect(parseRedisUrl('redis://127.0.0.1', 'x')).toEqual({
      host: '127.0.0.1',
      port: 6379,
      username: undefined,
      password: undefined,
      tls: false,
    });
  });

  it.each([
    ['not a url at all s3cret-pw', /not a URL/],
    ['http://default:s3cret-pw@host:1', /redis:\/\/ or rediss:\/\//],
    ['rediss://default:s3cret-pw@host:1/3', /database/],
    ['{"url": 42, "pw": "s3cret-pw"}', /without a string "url"/],
    ['{not json s3cret-pw', /does not parse/],
    ['', /no SecretString/],
  ])('rejects %j with a clear message that hides the password', (secret, message) => {
    let error: Error | undefined;
    try {
      redisUrlFromSecretString(secret, 'my-secret');
    } catch (e) {
      error = e as Error;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect(error?.message).toMatch(message);
    expect(error?.message).toContain('my-secret');
    expect(error?.message).not.toContain('s3cret-pw');
  });
});
