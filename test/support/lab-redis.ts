import { Redis } from 'ioredis';
import { readSecretViaExtension } from '../../lambda/shared/secrets-extension';
import type { RunningLab } from '../../local/lab';
import { LOCAL_SESSION_TOKEN } from '../../local/lab-defaults';
import { LOCAL_REDIS_SECRET_ARN } from '../../targets/redis/local-secret';
import { parseRedisUrl } from '../../targets/redis/secret';

/**
 * A plain connection to the lab's redis-server, bypassing the network model, with the password
 * read as a function reads it: from the extension stand-in, with the functions' token.
 */
export async function labRedisAdmin(lab: RunningLab): Promise<Redis> {
  const running = lab.targets.get('redis');
  if (!running) throw new Error('the lab does not run the redis target');
  // Every local function carries the lab's session token (local/lab.ts); the target adds its port.
  const env = { AWS_SESSION_TOKEN: LOCAL_SESSION_TOKEN, ...running.database.functionEnv(running.model) };
  const target = parseRedisUrl(
    (await readSecretViaExtension(LOCAL_REDIS_SECRET_ARN, env)) ?? '',
    'the lab secret',
  );
  const admin = new Redis({
    host: '127.0.0.1',
    port: running.database.upstreamPort,
    username: target.username,
    password: target.password,
    lazyConnect: true,
    connectTimeout: 2000,
    commandTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  admin.on('error', () => {});
  await admin.connect();
  return admin;
}

/** Every key with its value, sorted: what the functions have written. */
export async function redisContents(admin: Redis): Promise<string[]> {
  const out: string[] = [];
  for (const key of await admin.keys('*')) {
    const type = await admin.type(key);
    const value =
      type === 'string' ? await admin.get(key) : JSON.stringify(await admin.zrange(key, '0', '-1'));
    out.push(`${key} ${value}`);
  }
  return out.sort();
}
