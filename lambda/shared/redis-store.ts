/**
 * The redis target's PersonStore, over ioredis (the article's client), with the connection
 * managed here rather than by the client, so the lab knows exactly what each call cost:
 *
 * - keep-alive 'on': one connection per execution environment, opened lazily and reused. A
 *   connection the server has closed (Redis `timeout`, Upstash's idle limit) is replaced by
 *   the next call, which then reports a new connection. ioredis never reconnects on its own.
 * - keep-alive 'off': every call connects, authenticates, sends its command and QUIT.
 *
 * No offline queue: a command is written to a ready connection or fails at once. Timeouts as
 * for DynamoDB (http-client.ts): connect 1 s, each command 2 s, the whole call bounded by the
 * caller's AbortSignal (5 s). The only retry: once, when a reused connection turns out dead.
 *
 * A Person is one JSON string at person:<GovId>; creating one also adds its GovId to the
 * sorted set persons:by-type:<GovIdType> scored by creation time, so "the newest 10 of a
 * category" is a ZRANGE away with no migration. Both happen in one EVAL: one round trip,
 * atomic on the server.
 */
import type { ConnectionOptions } from 'node:tls';
import { Redis, ReplyError } from 'ioredis';
import { type KeepAliveVariant, readKeepAlive, requireEnv } from './env';
import { CONNECTION_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from './http-client';
import { PERSON_FIELDS, type Person } from './person';
import type { PersonStore } from './person-store';
import { type RedisTarget, readRedisSecret } from './redis-secret';
import { extensionSettings } from './secrets-extension';

export const personKey = (govId: string): string => `person:${govId}`;
export const byTypeKey = (govIdType: string): string => `persons:by-type:${govIdType}`;

/**
 * KEYS[1] person key, KEYS[2] by-type set; ARGV[1] JSON, ARGV[2] creation ms, ARGV[3] GovId.
 * Returns 1 when it wrote, else the stored JSON (so a retried create can tell its own write).
 * Both keys are declared, as Redis requires of scripts; on a sharded Redis they would need a
 * hash tag to share a slot (Upstash and a single redis-server do not).
 */
export const CREATE_SCRIPT = `if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  return 1
end
return redis.call('GET', KEYS[1])`;

/** Key prefixes for the scripts that derive keys from stored data (see below). */
const PERSON_PREFIX = personKey('');
const BY_TYPE_PREFIX = byTypeKey('');

/**
 * KEYS[1] person key, KEYS[2] the new by-type set; ARGV[1] JSON, ARGV[2] ms, ARGV[3] GovId,
 * ARGV[4] new GovIdType, ARGV[5] the by-type prefix. Returns 0 when there is no such Person.
 * An overwrite is a re-creation: the new score puts it first in its type. When GovIdType
 * changes, the GovId leaves the old type's set, whose key only the stored JSON names (so it
 * cannot be declared; fine on one server, a cluster would need hash tags).
 */
export const OVERWRITE_SCRIPT = `local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local oldType = cjson.decode(old)['GovIdType']
if oldType ~= ARGV[4] then redis.call('ZREM', ARGV[5] .. tostring(oldType), ARGV[3]) end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1`;

/**
 * KEYS[1] person key; ARGV[1] the new Address. Returns the updated JSON, or nil when there is
 * no such Person. Read, change, write on the server: one round trip, and no other client's
 * write can fall between the read and the write. The creation time (the score) is kept.
 */
export const UPDATE_SCRIPT = `local old = redis.call('GET', KEYS[1])
if not old then return false end
local person = cjson.decode(old)
person['Address'] = ARGV[1]
local json = cjson.encode(person)
redis.call('SET', KEYS[1], json)
return json`;

/**
 * KEYS[1] by-type set; ARGV[1] limit, ARGV[2] the person key prefix. The newest `limit` GovIds
 * of the type, then their JSON: ZREVRANGE + MGET in one round trip. Person keys come from the
 * set's members, so they cannot be declared (as for OVERWRITE_SCRIPT).
 */
export const QUERY_SCRIPT = `local ids = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #ids == 0 then return {} end
local keys = {}
for i, id in ipairs(ids) do keys[i] = ARGV[2] .. id end
return redis.call('MGET', unpack(keys))`;

/**
 * Connect + AUTH bound: ioredis's connectTimeout covers the TCP (and TLS) connect only, and a
 * server that accepts but never answers AUTH would otherwise leave connect() pending.
 */
export const HANDSHAKE_TIMEOUT_MS = CONNECTION_TIMEOUT_MS + REQUEST_TIMEOUT_MS;
/** How long a keep-alive 'off' connection waits for QUIT's reply before it is dropped. */
const QUIT_GRACE_MS = 1000;

export interface RedisStoreOptions {
  readonly target: RedisTarget;
  readonly keepAlive: KeepAliveVariant;
  /**
   * Extra TLS options for rediss:// (tests pass `ca`). Deployed and local functions trust the
   * server through the system store or NODE_EXTRA_CA_CERTS; nothing turns verification off.
   */
  readonly tls?: ConnectionOptions;
}

export interface RedisPersonStore extends PersonStore {
  /** Connections opened (attempted) since this store was made: one per call with keep-alive off. */
  socketsOpened(): number;
  /** Redis commands written so far, AUTH and QUIT included; a call's dbRequests is the delta. */
  requestsSent(): number;
  /** Drops the kept connection, if any (tests, shutdown). */
  close(): void;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the call was aborted');
}

/** Settles with the promise, or rejects when the signal aborts or ms pass (0: no timer). */
function bounded<T>(promise: Promise<T>, signal: AbortSignal, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = (): void => finish(() => reject(abortError(signal)));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (ms > 0) {
      timer = setTimeout(
        () => finish(() => reject(new Error(`${what} did not complete within ${ms} ms`))),
        ms,
      );
    }
    promise.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}

/** Errors that mean the connection died under the command; anything else is not retried. */
function isConnectionDrop(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof ReplyError) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    /Connection is closed|Stream isn't writeable/.test(error.message)
  );
}

function toJson(person: Person): string {
  const out: Record<string, string> = {};
  for (const f of PERSON_FIELDS) {
    const v = person[f];
    if (v !== undefined) out[f] = v;
  }
  return JSON.stringify(out);
}

function fromJson(text: string): Person {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const f of PERSON_FIELDS) {
    const v = parsed[f];
    if (typeof v === 'string') out[f] = v;
  }
  return out as unknown as Person;
}

export function createRedisStore(opts: RedisStoreOptions): RedisPersonStore {
  const { target, keepAlive } = opts;
  const counts = { sockets: 0, commands: 0 };
  let kept: Redis | undefined;
  let opening: Promise<Redis> | undefined;

  const newClient = (): Redis => {
    const client = new Redis({
      host: target.host,
      port: target.port,
      username: target.username,
      password: target.password,
      // ioredis does not read TLS from a rediss:// URL: say it. Node sets SNI from host.
      tls: target.tls ? { ...opts.tls } : undefined,
      // RESP2 + AUTH: one command, understood by every Redis and by Upstash.
      protocol: 2,
      lazyConnect: true,
      connectTimeout: CONNECTION_TIMEOUT_MS,
      commandTimeout: REQUEST_TIMEOUT_MS,
      // Each of these would add a round trip to every new connection: INFO, 2 x CLIENT SETINFO.
      enableReadyCheck: false,
      disableClientInfo: true,
      // Fail fast and let this module decide: no queue, no reconnect, no resend.
      enableOfflineQueue: false,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
    });
    // Failures reach the caller through the command's promise; without a listener ioredis
    // prints every socket error to the log.
    client.on('error', () => {});
    // Count what goes on the wire: ioredis writes a command only on a ready connection, or
    // during the handshake (AUTH); everything else it rejects without sending.
    const send = client.sendCommand.bind(client);
    client.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
      if ((client.status === 'ready' || client.status === 'connect') && client.stream?.writable) {
        counts.commands += 1;
      }
      return send(...args);
    };
    return client;
  };

  const open = async (signal: AbortSignal): Promise<Redis> => {
    const client = newClient();
    counts.sockets += 1;
    let socketError: Error | undefined;
    client.once('error', (error: Error) => {
      socketError = error;
    });
    try {
      await bounded(client.connect(), signal, HANDSHAKE_TIMEOUT_MS, 'Redis connect and AUTH');
      return client;
    } catch (error) {
      client.disconnect();
      if (signal.aborted || error instanceof ReplyError) throw error;
      // ioredis rejects connect() with "Connection is closed."; the socket's error says why.
      const why = socketError?.message ?? (error as Error).message;
      throw new Error(`Redis connect to ${target.host}:${target.port} failed: ${why}`, { cause: error });
    }
  };

  /** A connection to use and whether it was reused (only a reused one may be stale). */
  const acquire = async (signal: AbortSignal): Promise<{ client: Redis; reused: boolean }> => {
    if (keepAlive === 'off') return { client: await open(signal), reused: false };
    if (kept?.status === 'ready') return { client: kept, reused: true };
    // Concurrent calls in one environment share one connection attempt.
    if (opening === undefined) {
      kept?.disconnect();
      kept = undefined;
      opening = open(signal).finally(() => {
        opening = undefined;
      });
      kept = await opening;
      return { client: kept, reused: false };
    }
    return { client: await opening, reused: true };
  };

  const release = (client: Redis): void => {
    if (keepAlive === 'on') return;
    // QUIT without waiting for its reply: the server closes the connection after answering,
    // and a function closing its connection has no reason to wait (HTTP keep-alive off costs
    // no extra round trip either). The timer drops a connection whose reply never comes.
    client.quit().catch(() => {});
    setTimeout(() => client.disconnect(), QUIT_GRACE_MS).unref();
  };

  const discard = (client: Redis, error: unknown): void => {
    // A Redis error reply leaves the connection fine; anything else leaves it in doubt.
    if (error instanceof ReplyError && keepAlive === 'on') return;
    client.disconnect();
    if (kept === client) kept = undefined;
  };

  const run = async <T>(
    signal: AbortSignal,
    op: (client: Redis, retried: boolean) => Promise<T>,
  ): Promise<T> => {
    if (signal.aborted) throw abortError(signal);
    let retried = false;
    for (;;) {
      let acquired: { client: Redis; reused: boolean } | undefined;
      try {
        acquired = await acquire(signal);
        const result = await bounded(op(acquired.client, retried), signal, 0, 'Redis command');
        release(acquired.client);
        return result;
      } catch (error) {
        if (acquired) discard(acquired.client, error);
        // A kept connection closed by the server while idle: one retry on a new one.
        if (retried || !acquired?.reused || !isConnectionDrop(error) || signal.aborted) throw error;
        retried = true;
      }
    }
  };

  return {
    name: 'Redis',
    socketsOpened: () => counts.sockets,
    requestsSent: () => counts.commands,
    close: () => {
      kept?.disconnect();
      kept = undefined;
    },
    async create(person, signal) {
      const json = toJson(person);
      return run(signal, async (client, retried) => {
        const out = await client.eval(
          CREATE_SCRIPT,
          2,
          personKey(person.GovId),
          byTypeKey(person.GovIdType),
          json,
          String(Date.now()),
          person.GovId,
        );
        if (out === 1) return 'created';
        // The first attempt may have written before its connection dropped: our own JSON is ours.
        return retried && out === json ? 'created' : 'exists';
      });
    },
    async get(govId, signal) {
      return run(signal, async (client) => {
        const text = await client.get(personKey(govId));
        return text === null ? undefined : fromJson(text);
      });
    },
    async overwrite(person, signal) {
      const json = toJson(person);
      // A retry after a dropped connection runs the script again: same result, a later score.
      return run(signal, async (client) => {
        const out = await client.eval(
          OVERWRITE_SCRIPT,
          2,
          personKey(person.GovId),
          byTypeKey(person.GovIdType),
          json,
          String(Date.now()),
          person.GovId,
          person.GovIdType,
          BY_TYPE_PREFIX,
        );
        return out === 1 ? 'replaced' : 'missing';
      });
    },
    async update(govId, changes, signal) {
      return run(signal, async (client) => {
        const out = await client.eval(UPDATE_SCRIPT, 1, personKey(govId), changes.Address);
        return typeof out === 'string' ? fromJson(out) : undefined;
      });
    },
    async query(govIdType, limit, signal) {
      return run(signal, async (client) => {
        const out = await client.eval(QUERY_SCRIPT, 1, byTypeKey(govIdType), String(limit), PERSON_PREFIX);
        // A member whose JSON is gone reads as nil; nothing deletes Persons today, but skip it.
        return Array.isArray(out) ? out.filter((t): t is string => typeof t === 'string').map(fromJson) : [];
      });
    },
  };
}

/** What a deployed function needs before it can read its secret; checked at init, synchronously. */
export interface RedisEnv {
  readonly secretId: string;
  readonly keepAlive: KeepAliveVariant;
}

/** Fails the init with the variable's name when one is missing or bad (the extension's token included). */
export function readRedisEnv(env: NodeJS.ProcessEnv = process.env): RedisEnv {
  const secretId = requireEnv('REDIS_SECRET_ARN', env);
  const keepAlive = readKeepAlive(env);
  extensionSettings(env);
  return { secretId, keepAlive };
}

/**
 * The store a deployed function uses, from the URL in the secret named by REDIS_SECRET_ARN,
 * read through the Parameters and Secrets extension. Await it during an invocation (the
 * extension serves INVOKE only): lambda/shared/redis-handler.ts does, once per environment.
 */
export async function redisStoreFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RedisPersonStore> {
  const { secretId, keepAlive } = readRedisEnv(env);
  const target = await readRedisSecret(secretId, env);
  return createRedisStore({ target, keepAlive });
}
