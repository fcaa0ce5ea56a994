/**
 * The lab's Redis stand-in answers as a TLS Redis (Upstash) does, driven by redis-cli, a client
 * the lab does not use (its functions use ioredis). It starts only what the redis target starts:
 * redis-server with a password (targets/redis/engine.ts, the options targets/redis/local.ts gives
 * it) behind the network model's TLS, and connects with the URL the secret holds,
 * rediss://default:<password>@localhost:<model port>, trusting the lab CA.
 *
 * Upstash: TLS on every database, cannot be disabled; redis-cli connects with --tls or a
 * rediss:// URL (https://upstash.com/docs/redis/howto/redis-cli,
 * https://upstash.com/docs/redis/howto/connectclient); the commands it supports, EVAL and the
 * string and sorted-set commands the store uses among them:
 * https://upstash.com/docs/redis/overall/rediscompatibility
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_DIR } from '../../core/paths';
import {
  type NetworkModelProcess,
  startNetworkModelProcess,
} from '../../local/network/network-model-process';
import { type CertificatePaths, ensureCertificates } from '../../local/tls/certificates';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import {
  byTypeKey,
  CREATE_SCRIPT,
  OVERWRITE_SCRIPT,
  personKey,
  UPDATE_SCRIPT,
  VIEW_SCRIPT,
  VIEWS_KEY,
} from '../../targets/redis/store';
import { type ClientResult, runClient } from './support/clients';

/** Short, so the idle case waits seconds, not the lab's default minute. */
const IDLE_TIMEOUT_S = 1;

describe('the Redis stand-in, as redis-cli sees it through the network model', () => {
  let certs: CertificatePaths;
  let engine: RedisEngine;
  let model: NetworkModelProcess;
  // A new password per run, of the alphabet the target draws from.
  const password = randomBytes(18).toString('base64url');
  let url: string;

  beforeAll(async () => {
    certs = await ensureCertificates(join(CACHE_DIR, 'tls'));
    engine = await startRedis({ password, idleTimeoutS: IDLE_TIMEOUT_S });
    model = await startNetworkModelProcess({
      upstreamHost: '127.0.0.1',
      upstreamPort: engine.port,
      rttMs: 2,
      tls: certs,
    });
    // What the extension stand-in serves the functions (targets/redis/local.ts).
    url = `rediss://default:${password}@localhost:${model.port}`;
  }, 60_000);
  afterAll(async () => {
    await model?.close();
    await engine?.stop();
  });

  /** redis-cli with the secret's URL and the lab CA; `--no-raw` prints typed replies as a terminal would. */
  const cli = (args: string[], opts: { raw?: boolean } = {}): Promise<ClientResult> =>
    runClient('redis-cli', [
      '--cacert',
      certs.caCertPath,
      '-u',
      url,
      '--no-auth-warning',
      ...(opts.raw ? [] : ['--no-raw']),
      ...args,
    ]);
  /** redis-cli over TLS with no credentials at all. */
  const anonymous = (args: string[]) =>
    runClient('redis-cli', [
      '--tls',
      '--cacert',
      certs.caCertPath,
      '-h',
      'localhost',
      '-p',
      String(model.port),
      ...args,
    ]);

  it('a rediss:// URL verified against the lab CA connects; without the CA the handshake fails', async () => {
    // Upstash's own example: redis-cli -u rediss://default:PASSWORD@ENDPOINT:PORT (TLS always on).
    const ok = await cli(['PING']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe('PONG');
    // Same server, TLS requested, but only the system's trust store: the lab's CA is not in it.
    const untrusted = await runClient('redis-cli', [
      '--tls',
      '-h',
      'localhost',
      '-p',
      String(model.port),
      '--user',
      'default',
      '--pass',
      password,
      '--no-auth-warning',
      'PING',
    ]);
    expect(untrusted.code).not.toBe(0);
    expect(untrusted.stderr).toContain('certificate verify failed');
    expect(untrusted.stdout).not.toContain('PONG');
  }, 60_000);

  it('refuses every command before AUTH with NOAUTH, and answers it after AUTH', async () => {
    // "Until the connection authenticates, the server refuses almost every command, even PING":
    // NOAUTH Authentication required. https://redis.io/docs/latest/develop/reference/errors/common/noauth/
    for (const command of [['PING'], ['GET', personKey('CF-ANY')], ['EVAL', 'return 1', '0']]) {
      const r = await anonymous(command);
      expect(r.stdout.trim(), command.join(' ')).toBe('NOAUTH Authentication required.');
    }
    // AUTH on the same connection, as a client without credentials in its URL does (redis-cli
    // reads the commands from stdin one by one on one connection).
    const r = await runClient(
      'redis-cli',
      ['--tls', '--cacert', certs.caCertPath, '-h', 'localhost', '-p', String(model.port)],
      { input: `PING\nAUTH default ${password}\nPING\n` },
    );
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(['NOAUTH Authentication required.', 'OK', 'PONG']);
  }, 60_000);

  it('refuses a wrong password or user with WRONGPASS, the same for both', async () => {
    // WRONGPASS invalid username-password pair or user is disabled. (same message whether the
    // password is wrong or the user does not exist):
    // https://redis.io/docs/latest/develop/reference/errors/common/wrongpass/
    for (const user of ['default', 'nobody']) {
      const r = await runClient(
        'redis-cli',
        ['--tls', '--cacert', certs.caCertPath, '-h', 'localhost', '-p', String(model.port)],
        { input: `AUTH ${user} wrong-${password}\nGET ${personKey('CF-ANY')}\n` },
      );
      expect(r.stdout.split('\n').filter(Boolean), user).toEqual([
        'WRONGPASS invalid username-password pair or user is disabled.',
        'NOAUTH Authentication required.',
      ]);
    }
  }, 60_000);

  it("answers the store's commands as Redis does: the create, get, update and overwrite scripts, the query's ZREVRANGE and MGET", async () => {
    // EVAL: Lua true -> integer 1, false/nil -> nil, a table -> an array; SET ... NX returns nil
    // when the key exists: https://redis.io/docs/latest/develop/interact/programmability/lua-api/
    // and https://redis.io/docs/latest/commands/set/
    const govId = `CF-${randomBytes(4).toString('hex')}`;
    const json = JSON.stringify({ GovId: govId, GovIdType: 'Passport', FirstName: 'Grace' });
    const create = [
      'EVAL',
      CREATE_SCRIPT,
      '2',
      personKey(govId),
      byTypeKey('Passport'),
      json,
      '1700000000000',
      govId,
    ];
    expect((await cli(create)).stdout.trim()).toBe('(integer) 1');
    // Second create of the same GovId: the stored JSON comes back (the store reads "exists").
    expect((await cli(create, { raw: true })).stdout.trim()).toBe(json);
    expect((await cli(['GET', personKey(govId)], { raw: true })).stdout.trim()).toBe(json);
    expect((await cli(['GET', personKey(`${govId}-none`)])).stdout.trim()).toBe('(nil)');

    const updated = await cli(['EVAL', UPDATE_SCRIPT, '1', personKey(govId), '1 Main St'], { raw: true });
    expect(JSON.parse(updated.stdout)).toMatchObject({ GovId: govId, Address: '1 Main St' });
    expect((await cli(['EVAL', UPDATE_SCRIPT, '1', personKey(`${govId}-none`), 'x'])).stdout.trim()).toBe(
      '(nil)',
    );

    const replaced = JSON.stringify({ GovId: govId, GovIdType: 'Driver License', FirstName: 'Ada' });
    // Every key through KEYS: the new type's set, and the set of the type the caller believes stored.
    const overwrite = (id: string, believed: string) => [
      'EVAL',
      OVERWRITE_SCRIPT,
      '4',
      personKey(id),
      byTypeKey('Driver License'),
      byTypeKey(believed),
      VIEWS_KEY,
      replaced,
      '1700000000001',
      id,
      believed,
    ];
    // Believed unchanged, but stored as Passport: the stored type comes back, nothing written.
    expect((await cli(overwrite(govId, 'Driver License'), { raw: true })).stdout.trim()).toBe('Passport');
    // An overwrite is a re-creation: the story's view count (news-top10) starts again.
    expect((await cli(['ZINCRBY', VIEWS_KEY, '5', govId])).stdout.trim()).toBe('"5"');
    expect((await cli(overwrite(govId, 'Passport'))).stdout.trim()).toBe('(integer) 1');
    expect((await cli(['ZSCORE', VIEWS_KEY, govId])).stdout.trim()).toBe('(nil)');
    expect((await cli(overwrite(`${govId}-none`, 'Driver License'))).stdout.trim()).toBe('(integer) 0');
    // The GovId moved from the old type's sorted set to the new one's.
    expect((await cli(['ZSCORE', byTypeKey('Passport'), govId])).stdout.trim()).toBe('(nil)');
    expect(
      (await cli(['ZREVRANGE', byTypeKey('Driver License'), '0', '-1'], { raw: true })).stdout.trim(),
    ).toBe(govId);
    // The query: ZREVRANGE of the type's set, then MGET of those person keys.
    expect((await cli(['ZREVRANGE', byTypeKey('Nobody'), '0', '9'])).stdout.trim()).toBe('(empty array)');
    expect((await cli(['MGET', personKey(govId), personKey(`${govId}-none`)])).stdout.trim()).toBe(
      `1) "${replaced.replace(/"/g, '\\"')}"\n2) (nil)`,
    );
    // news-top10's view: one EVAL reads the story and counts it (ZINCRBY answers the new score as a
    // bulk string: https://redis.io/docs/latest/commands/zincrby/); a missing story counts nothing.
    const view = (id: string) => ['EVAL', VIEW_SCRIPT, '2', personKey(id), VIEWS_KEY, id];
    expect((await cli(view(govId), { raw: true })).stdout.trim().split('\n')).toEqual([replaced, '1']);
    expect((await cli(view(govId), { raw: true })).stdout.trim().split('\n')).toEqual([replaced, '2']);
    expect((await cli(view(`${govId}-none`))).stdout.trim()).toBe('(nil)');
    expect((await cli(['ZSCORE', VIEWS_KEY, `${govId}-none`])).stdout.trim()).toBe('(nil)');
    // The top 10: ZREVRANGE ... WITHSCORES of the view counts, highest first.
    expect(
      (await cli(['ZREVRANGE', VIEWS_KEY, '0', '9', 'WITHSCORES'], { raw: true })).stdout.trim().split('\n'),
    ).toEqual([govId, '2']);
    // keep-alive off ends each call with QUIT, answered OK before the server closes.
    expect((await cli(['QUIT'])).stdout.trim()).toBe('OK');
  }, 60_000);

  it('closes a connection idle longer than the timeout; the next command finds it closed', async () => {
    // "timeout: Close the connection after a client is idle for N seconds" (redis.conf), checked by
    // the server's periodic task, so it can close a little after N:
    // https://redis.io/docs/latest/develop/reference/clients/ (Client timeouts). The lab runs it
    // with --idle-timeout (default 60 s); here 1 s, and the second PING waits 3x that.
    const r = await cli(['-r', '2', '-i', String(3 * IDLE_TIMEOUT_S), 'PING'], { raw: true });
    expect(r.stdout.trim()).toBe('PONG');
    expect(r.stderr).toContain('Server closed the connection');
    expect(r.code).not.toBe(0);
  }, 60_000);
});
