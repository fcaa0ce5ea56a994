/**
 * The valkey target's PersonStore: the redis target's store (targets/redis/store.ts: ioredis,
 * the same scripts, connection handling, timeouts and keep-alive variants) pointed at a
 * serverless cache:
 *
 * - TLS always (a serverless cache accepts nothing else), to the cache's endpoint and port;
 * - AUTH as the ElastiCache user with an IAM token (token.ts) as the password, read by each new
 *   connection from the token source, which the store refreshes before every call;
 * - every key under one hash tag (access.ts KEY_PREFIX), so the store's multi-key scripts and
 *   MGET stay in one slot of the cluster-mode cache;
 * - each command's bytes metered for ECPUs (cost.ts).
 */
import type { ConnectionOptions } from 'node:tls';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { Redis } from 'ioredis';
import {
  EnvError,
  type KeepAliveVariant,
  readKeepAlive,
  readTlsMaxVersion,
  requireEnv,
} from '../../lambda/shared/env';
import type { PersonStore } from '../../lambda/shared/person-store';
import type { RedisTarget } from '../redis/secret';
import { createRedisStore } from '../redis/store';
import { KEY_PREFIX } from './access';
import { VALKEY_CACHE_NAME_ENV, VALKEY_ENDPOINT_ENV, VALKEY_PORT_ENV, VALKEY_USER_ENV } from './env-names';
import { BYTES_PER_ECPU, VALKEY_COMMANDS, VALKEY_ECPU_BYTES, VALKEY_TRANSFER_BYTES } from './meter-keys';
import { type ValkeyTokenSource, valkeyTokenSource } from './token';

/** Connection commands: not reads or writes of data, so not metered as ECPUs. */
const UNMETERED = new Set(['auth', 'quit', 'hello', 'ping']);

/** Bytes of one RESP2 value on the wire. */
export function respBytes(value: unknown): number {
  if (value === null || value === undefined) return 5; // $-1\r\n
  if (typeof value === 'number') return 3 + String(value).length; // :n\r\n
  if (Buffer.isBuffer(value)) return bulk(value.length);
  if (Array.isArray(value))
    return 3 + String(value.length).length + value.reduce((s, v) => s + respBytes(v), 0);
  if (value instanceof Error) return 3 + Buffer.byteLength(value.message);
  return bulk(Buffer.byteLength(String(value)));
}
const bulk = (n: number) => 5 + String(n).length + n; // $n\r\n...\r\n

/** A command as written: an array of the name and its arguments. */
export function requestBytes(name: string, args: readonly unknown[]): number {
  return respBytes([name, ...args.map((a) => (Buffer.isBuffer(a) ? a : String(a)))]);
}

export interface ValkeyStoreOptions {
  readonly host: string;
  readonly port: number;
  readonly userId: string;
  readonly tokens: ValkeyTokenSource;
  readonly keepAlive: KeepAliveVariant;
  /** Extra TLS options (tests pass `ca`); verification is never turned off. */
  readonly tls?: ConnectionOptions;
}

export interface ValkeyPersonStore extends PersonStore {
  /** Drops the kept connection, if any. */
  close(): void;
}

export function createValkeyStore(opts: ValkeyStoreOptions): ValkeyPersonStore {
  const { tokens } = opts;
  // Read by each new client when it is made: the token current then (refreshed before every call).
  const target: RedisTarget = {
    host: opts.host,
    port: opts.port,
    username: opts.userId,
    get password() {
      return tokens.current();
    },
    tls: true,
  };
  const metered = { commands: 0, transferBytes: 0, ecpuBytes: 0 };
  const meter = (client: Redis): void => {
    const send = client.sendCommand.bind(client);
    client.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
      const [command] = args;
      const written = (client.status === 'ready' || client.status === 'connect') && client.stream?.writable;
      const result = send(...args);
      if (written && !UNMETERED.has(command.name.toLowerCase())) {
        const out = requestBytes(command.name, command.args);
        const count = (reply: unknown) => {
          const bytes = out + respBytes(reply);
          metered.commands += 1;
          metered.transferBytes += bytes;
          metered.ecpuBytes += Math.max(bytes, BYTES_PER_ECPU);
        };
        command.promise.then(count, (error: unknown) => {
          // A reply error was transferred too; a dropped connection moved no reply.
          if (error instanceof Error && error.name === 'ReplyError') count(error);
        });
      }
      return result;
    };
  };
  const inner = createRedisStore({
    target,
    keepAlive: opts.keepAlive,
    keyLocking: false,
    keyPrefix: KEY_PREFIX,
    onClient: meter,
    ...(opts.tls ? { tls: opts.tls } : {}),
  });
  const fresh = async <T>(op: () => Promise<T>): Promise<T> => {
    await tokens.token();
    return op();
  };
  return {
    name: 'ElastiCache Serverless (Valkey)',
    socketsOpened: () => inner.socketsOpened(),
    requestsSent: () => inner.requestsSent(),
    billed: () =>
      new Map([
        [VALKEY_COMMANDS, { quantity: metered.commands, basis: 'measured' as const }],
        [VALKEY_TRANSFER_BYTES, { quantity: metered.transferBytes, basis: 'measured' as const }],
        [VALKEY_ECPU_BYTES, { quantity: metered.ecpuBytes, basis: 'measured' as const }],
      ]),
    close: () => inner.close(),
    create: (person, signal) => fresh(() => inner.create(person, signal)),
    get: (govId, signal) => fresh(() => inner.get(govId, signal)),
    overwrite: (person, signal) => fresh(() => inner.overwrite(person, signal)),
    update: (govId, changes, signal) => fresh(() => inner.update(govId, changes, signal)),
    query: (govIdType, limit, signal) => fresh(() => inner.query(govIdType, limit, signal)),
  };
}

export interface ValkeyEnv {
  readonly host: string;
  readonly port: number;
  readonly cacheName: string;
  readonly userId: string;
  readonly region: string;
  readonly keepAlive: KeepAliveVariant;
  readonly tls?: ConnectionOptions;
}

/** Fails the init with the variable's name when one is missing or bad. */
export function readValkeyEnv(env: NodeJS.ProcessEnv = process.env): ValkeyEnv {
  const host = requireEnv(VALKEY_ENDPOINT_ENV, env);
  const portText = requireEnv(VALKEY_PORT_ENV, env);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new EnvError(`${VALKEY_PORT_ENV} must be a TCP port, got ${portText}`);
  }
  const maxVersion = readTlsMaxVersion(env);
  return {
    host,
    port,
    cacheName: requireEnv(VALKEY_CACHE_NAME_ENV, env).toLowerCase(),
    userId: requireEnv(VALKEY_USER_ENV, env),
    region: requireEnv('AWS_REGION', env),
    keepAlive: readKeepAlive(env),
    ...(maxVersion ? { tls: { maxVersion } } : {}),
  };
}

/** The store a function uses: the cache from its environment, tokens from its own credentials. */
export function valkeyStoreFromEnv(env: NodeJS.ProcessEnv = process.env): ValkeyPersonStore {
  const e = readValkeyEnv(env);
  return createValkeyStore({
    host: e.host,
    port: e.port,
    userId: e.userId,
    keepAlive: e.keepAlive,
    tokens: valkeyTokenSource({
      cacheName: e.cacheName,
      userId: e.userId,
      region: e.region,
      // Lambda puts the execution role's credentials in these variables (the local host, the lab's).
      credentials: fromEnv(),
    }),
    ...(e.tls ? { tls: e.tls } : {}),
  });
}
