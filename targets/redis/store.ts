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
 * atomic on the server. The news site's view counts (news-top10) are the scores of one more
 * sorted set, stories:by-views, as the article kept its stories in one sorted set.
 */
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Redis, ReplyError } from 'ioredis';
import {
  type KeepAliveVariant,
  readKeepAlive,
  readTlsMaxVersion,
  requireEnv,
  type TlsMaxVersion,
} from '../../lambda/shared/env';
import { CONNECTION_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../lambda/shared/http-client';
import { PERSON_FIELDS, type Person } from '../../lambda/shared/person';
import { type PersonStore, type Story, TOP_STORIES } from '../../lambda/shared/person-store';
import { extensionSettings } from '../../lambda/shared/secrets-extension';
import { type RedisTarget, readRedisSecret } from './secret';

export const personKey = (govId: string): string => `person:${govId}`;
export const byTypeKey = (govIdType: string): string => `persons:by-type:${govIdType}`;
/** The view counts: member GovId, score the views (ZINCRBY), read highest first by the top 10. */
export const VIEWS_KEY = 'stories:by-views';

/*
 * Every key a script touches comes through KEYS, never built inside it. Upstash runs a script
 * under its global lock unless the script's shebang says `#!lua flags=allow-key-locking`, and
 * with that flag it locks only the keys in KEYS and refuses any other
 * (https://upstash.com/docs/redis/features/key-locking, .../commands/scripting/eval): under
 * parallel load a global lock queues every other command behind each script. Redis 7.0
 * refuses the flag ("ERR Unexpected flag in script shebang: allow-key-locking"), so it is
 * added only for a server that supports it (scriptFor, RedisStoreOptions.keyLocking).
 */

/**
 * KEYS[1] person key, KEYS[2] by-type set; ARGV[1] JSON, ARGV[2] creation ms, ARGV[3] GovId.
 * Returns 1 when it wrote, else the stored JSON (so a retried create can tell its own write).
 * On a sharded Redis both keys would need a hash tag to share a slot (Upstash and a single
 * redis-server do not shard).
 */
export const CREATE_SCRIPT = `if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  return 1
end
return redis.call('GET', KEYS[1])`;

/**
 * KEYS[1] person key, KEYS[2] the new type's set, KEYS[3] the set of the type the caller
 * believes is stored, KEYS[4] the view counts; ARGV[1] JSON, ARGV[2] ms, ARGV[3] GovId, ARGV[4]
 * that believed type. Returns 1 when it replaced the Person, 0 when there is none, and the
 * stored GovIdType, writing nothing, when it is not the believed one: the caller sends the
 * script again with that type's set in KEYS[3]. An overwrite is a re-creation: the new score
 * puts it first in its type, a changed type moves the GovId out of the old type's set, and its
 * view count starts again (as on every target).
 */
export const OVERWRITE_SCRIPT = `local old = redis.call('GET', KEYS[1])
if not old then return 0 end
local oldType = tostring(cjson.decode(old)['GovIdType'])
if oldType ~= ARGV[4] then return oldType end
if KEYS[3] ~= KEYS[2] then redis.call('ZREM', KEYS[3], ARGV[3]) end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[3])
return 1`;

/**
 * KEYS[1] person key, KEYS[2] the view counts; ARGV[1] GovId. Returns {JSON, views} after
 * counting the view, or nil when there is no such Person (nothing counted): one round trip,
 * and no count for a story that does not exist.
 */
export const VIEW_SCRIPT = `local json = redis.call('GET', KEYS[1])
if not json then return false end
local views = redis.call('ZINCRBY', KEYS[2], 1, ARGV[1])
return {json, views}`;

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
 * KEYS[1] the view counts; ARGV[1] how many, ARGV[2] the person key prefix. Returns {JSON,
 * views, JSON, views, ...} of the most viewed, most first: the top 10 in one round trip, as the
 * article's one ZREVRANGE (it kept each story's JSON as the set's member; here the records stay
 * apart, so the script reads them where they are). It reads keys it cannot declare (they come
 * out of the set), so it is sent without the key-locking flag, which would refuse them: Upstash
 * runs a script without it under its global lock, "because the engine cannot know in advance
 * which keys the script will touch" (https://upstash.com/docs/redis/commands/scripting/eval),
 * here a read of eleven keys. A member whose JSON is gone is left out.
 */
export const TOP10_SCRIPT = `local flat = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1, 'WITHSCORES')
local out = {}
for i = 1, #flat, 2 do
  local json = redis.call('GET', ARGV[2] .. flat[i])
  if json then
    out[#out + 1] = json
    out[#out + 1] = flat[i + 1]
  end
end
return out`;

/** Every script the store sends with its KEYS alone, by name (tests run each so; TOP10_SCRIPT is not one). */
export const SCRIPTS = {
  create: CREATE_SCRIPT,
  overwrite: OVERWRITE_SCRIPT,
  update: UPDATE_SCRIPT,
  view: VIEW_SCRIPT,
} as const;

/** The shebang that asks Upstash for per-key locks. */
export const KEY_LOCKING_SHEBANG = '#!lua flags=allow-key-locking';

/** The script as sent: with the key-locking shebang where the server supports it. */
export function scriptFor(body: string, keyLocking: boolean): string {
  return keyLocking ? `${KEY_LOCKING_SHEBANG}\n${body}` : body;
}

/** Upstash's endpoints: `<name>-<id>.upstash.io`. Other servers get scripts without flags. */
export function supportsKeyLocking(host: string): boolean {
  return /\.upstash\.io$/i.test(host);
}

/** How often an overwrite follows a GovIdType that keeps changing under it before it gives up. */
const OVERWRITE_ATTEMPTS = 3;

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
  /**
   * Send scripts with `#!lua flags=allow-key-locking` (Upstash's per-key locks). Redis itself
   * refuses the flag. @default supportsKeyLocking(target.host): on for Upstash's endpoints
   */
  readonly keyLocking?: boolean;
  /**
   * Prepended to every key the store names (ioredis's keyPrefix, and the person key prefix the
   * top 10 script builds keys from), e.g. a hash tag that puts every key in one cluster slot.
   * @default none
   */
  readonly keyPrefix?: string;
  /** Called with each client the store makes, before it connects (a caller's own metering). @default none */
  readonly onClient?: (client: Redis) => void;
}

export interface RedisPersonStore extends PersonStore {
  view: NonNullable<PersonStore['view']>;
  top10: NonNullable<PersonStore['top10']>;
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
  const keyLocking = opts.keyLocking ?? supportsKeyLocking(target.host);
  const scripts = {
    create: scriptFor(CREATE_SCRIPT, keyLocking),
    overwrite: scriptFor(OVERWRITE_SCRIPT, keyLocking),
    update: scriptFor(UPDATE_SCRIPT, keyLocking),
    view: scriptFor(VIEW_SCRIPT, keyLocking),
  };
  const counts = { sockets: 0, commands: 0 };
  let kept: Redis | undefined;
  let opening: Promise<Redis> | undefined;

  const newClient = (): Redis => {
    const client = new Redis({
      host: target.host,
      port: target.port,
      username: target.username,
      password: target.password,
      // ioredis does not read TLS from a rediss:// URL: say it. Nor does it set SNI: it calls
      // tls.connect with host and port, and Node sends a server name only when given
      // `servername` (https sets it; a raw tls.connect does not). Providers that route TLS by
      // it need it; an IP address is never sent as SNI (RFC 6066, section 3).
      tls: target.tls
        ? { servername: isIP(target.host) === 0 ? target.host : undefined, ...opts.tls }
        : undefined,
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
      ...(opts.keyPrefix ? { keyPrefix: opts.keyPrefix } : {}),
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
    opts.onClient?.(client);
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
    // Upstash bills every command it receives; the client counts each one it writes.
    billed: () => new Map([['redis.commands', { quantity: counts.commands, basis: 'measured' as const }]]),
    close: () => {
      kept?.disconnect();
      kept = undefined;
    },
    async create(person, signal) {
      const json = toJson(person);
      return run(signal, async (client, retried) => {
        const out = await client.eval(
          scripts.create,
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
      const newSet = byTypeKey(person.GovIdType);
      // A retry after a dropped connection runs the script again: same result, a later score.
      return run(signal, async (client) => {
        // Most overwrites keep the type: one round trip. A changed type costs a second one,
        // with the stored type's set declared this time.
        let believed = person.GovIdType;
        for (let attempt = 1; ; attempt++) {
          const out = await client.eval(
            scripts.overwrite,
            4,
            personKey(person.GovId),
            newSet,
            byTypeKey(believed),
            VIEWS_KEY,
            json,
            String(Date.now()),
            person.GovId,
            believed,
          );
          if (out === 1) return 'replaced';
          if (out === 0) return 'missing';
          if (typeof out !== 'string' || attempt >= OVERWRITE_ATTEMPTS) {
            throw new Error(`Redis overwrite: GovIdType of ${person.GovId} kept changing under it`);
          }
          believed = out;
        }
      });
    },
    async update(govId, changes, signal) {
      return run(signal, async (client) => {
        const out = await client.eval(scripts.update, 1, personKey(govId), changes.Address);
        return typeof out === 'string' ? fromJson(out) : undefined;
      });
    },
    async query(govIdType, limit, signal) {
      // Two plain commands, not a script: the person keys come from the set's members, and a
      // script may only touch keys it declares. ZREVRANGE, then MGET of exactly those keys.
      return run(signal, async (client) => {
        const ids = await client.zrevrange(byTypeKey(govIdType), 0, limit - 1);
        if (ids.length === 0) return [];
        const texts = await client.mget(...ids.map(personKey));
        // A member whose JSON is gone reads as nil, and one overwritten into another type
        // between the two commands is not of this type any more: both are left out.
        return texts
          .filter((t): t is string => typeof t === 'string')
          .map(fromJson)
          .filter((p) => p.GovIdType === govIdType);
      });
    },
    async view(govId, signal) {
      // A retry after a dropped connection runs the script again: if the first run landed, the
      // view is counted twice (Redis has no idempotent increment).
      return run(signal, async (client) => {
        const out = await client.eval(scripts.view, 2, personKey(govId), VIEWS_KEY, govId);
        if (!Array.isArray(out)) return undefined;
        const [json, views] = out as [string, string];
        return { person: fromJson(json), views: Number(views) };
      });
    },
    async top10(signal) {
      // One EVAL: ZREVRANGE ... WITHSCORES and the records' GETs on the server, one round trip
      // as the article's ZREVRANGE.
      return run(signal, async (client) => {
        const flat = (await client.eval(
          TOP10_SCRIPT,
          1,
          VIEWS_KEY,
          String(TOP_STORIES),
          `${opts.keyPrefix ?? ''}${personKey('')}`,
        )) as string[];
        const stories: Story[] = [];
        for (let i = 0; i + 1 < flat.length; i += 2)
          stories.push({ person: fromJson(flat[i]), views: Number(flat[i + 1]) });
        return stories;
      });
    },
  };
}

/** What a deployed function needs before it can read its secret; checked at init, synchronously. */
export interface RedisEnv {
  readonly secretId: string;
  readonly keepAlive: KeepAliveVariant;
  /** LAB_TLS_MAX_VERSION: the newest TLS version a rediss:// connection offers. @default Node's */
  readonly tlsMaxVersion?: TlsMaxVersion;
}

/** Fails the init with the variable's name when one is missing or bad (the extension's token included). */
export function readRedisEnv(env: NodeJS.ProcessEnv = process.env): RedisEnv {
  const secretId = requireEnv('REDIS_SECRET_ARN', env);
  const keepAlive = readKeepAlive(env);
  const tlsMaxVersion = readTlsMaxVersion(env);
  extensionSettings(env);
  return { secretId, keepAlive, ...(tlsMaxVersion ? { tlsMaxVersion } : {}) };
}

/**
 * The store a deployed function uses, from the URL in the secret named by REDIS_SECRET_ARN,
 * read through the Parameters and Secrets extension. Await it during an invocation (the
 * extension serves INVOKE only): targets/redis/redis-handler.ts does, once per environment.
 */
export async function redisStoreFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RedisPersonStore> {
  const { secretId, keepAlive, tlsMaxVersion } = readRedisEnv(env);
  const target = await readRedisSecret(secretId, env);
  return createRedisStore({
    target,
    keepAlive,
    ...(tlsMaxVersion ? { tls: { maxVersion: tlsMaxVersion } } : {}),
  });
}
