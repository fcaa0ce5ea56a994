import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_DEADLINE_MS } from '../../lambda/shared/http-client';
import { ENSURE_SCRIPT, type RedisEngine, redisArgs, startRedis } from '../../targets/redis/engine';
import { parseRedisUrl } from '../../targets/redis/secret';
import { createRedisStore } from '../../targets/redis/store';
import { samplePerson } from '../support/events';

const PASSWORD = 'engine-test-password';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(opts: Partial<Parameters<typeof startRedis>[0]> = {}): Promise<RedisEngine> {
  const engine = await startRedis({ password: PASSWORD, ...opts });
  cleanups.push(() => engine.stop());
  return engine;
}

async function client(engine: RedisEngine, password?: string): Promise<Redis> {
  const c = new Redis({
    host: '127.0.0.1',
    port: engine.port,
    password,
    lazyConnect: true,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    enableReadyCheck: false,
    protocol: 2,
    disableClientInfo: true,
  });
  c.on('error', () => {});
  await c.connect();
  cleanups.push(async () => c.disconnect());
  return c;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startRedis', () => {
  it('runs redis-server on 127.0.0.1 with a password, the idle timeout and no persistence', async () => {
    const engine = await started();
    expect(engine.kind).toBe('redis');
    expect(engine.endpoint).toBe(`redis://127.0.0.1:${engine.port}`);
    expect(engine.endpoint).not.toContain(PASSWORD);
    expect(isRunning(engine.pid)).toBe(true);

    const anonymous = await client(engine);
    await expect(anonymous.ping()).rejects.toThrow(/NOAUTH/);

    const c = await client(engine, PASSWORD);
    expect(await c.ping()).toBe('PONG');
    expect(await c.config('GET', 'timeout')).toEqual(['timeout', '60']);
    expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await c.config('GET', 'save')).toEqual(['save', '']);
    expect(await c.config('GET', 'bind')).toEqual(['bind', '127.0.0.1']);

    await engine.stop();
    expect(isRunning(engine.pid)).toBe(false);
    await engine.stop(); // idempotent
  });

  it("refuses a client's SHUTDOWN as an unknown command and keeps serving (fuzzing found it ended the server)", async () => {
    const engine = await started();
    const c = await client(engine, PASSWORD);
    await c.set('kept', 'yes');
    await expect(c.call('SHUTDOWN')).rejects.toThrow(/unknown command 'shutdown'/i);
    await expect(c.call('SHUTDOWN', 'NOSAVE')).rejects.toThrow(/unknown command 'shutdown'/i);
    expect(isRunning(engine.pid)).toBe(true);
    expect(await c.get('kept')).toBe('yes');
  });

  it('takes the idle timeout it is given, and the server closes idle connections', async () => {
    const engine = await started({ idleTimeoutS: 1 });
    const c = await client(engine, PASSWORD);
    expect(await c.config('GET', 'timeout')).toEqual(['timeout', '1']);
    const closed = new Promise<number>((resolve) => {
      const t = Date.now();
      c.once('end', () => resolve(Date.now() - t));
    });
    // The server closed it (the event); 1 s idle timeout with over 3x slack.
    expect(await closed).toBeLessThan(10_000);
  });

  it('loses no acknowledged create across SIGKILL and a restart on the same data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'redis-data-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await started({ dataDir });
    const c = await client(first, PASSWORD);
    expect(await c.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);

    const store = createRedisStore({ target: parseRedisUrl(first.url, 'test'), keepAlive: 'off' });
    const ids = Array.from({ length: 20 }, (_, i) => `DUR-${i}`);
    for (const id of ids) {
      expect(await store.create(samplePerson(id), AbortSignal.timeout(DB_DEADLINE_MS))).toBe('created');
    }
    process.kill(first.pid, 'SIGKILL'); // our own child, by its pid
    await first.stop(); // resolves once it has exited
    expect(isRunning(first.pid)).toBe(false);

    const second = await started({ dataDir });
    const after = createRedisStore({ target: parseRedisUrl(second.url, 'test'), keepAlive: 'off' });
    for (const id of ids) {
      expect(await after.get(id, AbortSignal.timeout(DB_DEADLINE_MS))).toEqual(samplePerson(id));
    }
  });

  it('names the ensure script when redis-server cannot be run', async () => {
    await expect(
      startRedis({ password: PASSWORD, command: 'redis-server-that-does-not-exist' }),
    ).rejects.toThrow(`run bash ${ENSURE_SCRIPT}`);
  });

  it('refuses a port already taken, and bad options, with clear messages', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;
    await expect(startRedis({ password: PASSWORD, port })).rejects.toThrow(/already in use/);
    await expect(startRedis({ password: 'short' })).rejects.toThrow(/password must be/);
    await expect(startRedis({ password: 'has spaces in it' })).rejects.toThrow(/password must be/);
    await expect(startRedis({ password: PASSWORD, idleTimeoutS: -1 })).rejects.toThrow(/idleTimeoutS/);
  });

  it('keeps data in memory unless given a folder', () => {
    const inMemory = redisArgs(6379, { password: PASSWORD });
    expect(inMemory).toEqual(expect.arrayContaining(['--appendonly', 'no', '--save', '']));
    const durable = redisArgs(6379, { password: PASSWORD, dataDir: '/data' });
    expect(durable.join(' ')).toContain('--dir /data --appendonly yes --appendfsync always');
    // The lab's run data: written before each reply, not fsynced (survives a process kill).
    const runData = redisArgs(6379, { password: PASSWORD, dataDir: '/run', durable: false });
    expect(runData.join(' ')).toContain('--dir /run --appendonly yes --appendfsync no');
  });
});
