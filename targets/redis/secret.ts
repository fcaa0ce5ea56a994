/**
 * Where the redis target's database is: a `rediss://default:<password>@host:port` URL kept in
 * a Secrets Manager secret (the user's Upstash or any TLS Redis), read once per execution
 * environment. The password never appears in an error message.
 */
import { EnvError } from '../../lambda/shared/env';
import { readSecretViaExtension } from '../../lambda/shared/secrets-extension';

export interface RedisTarget {
  readonly host: string;
  readonly port: number;
  /** Redis 6+ ACL user; `default` is the one `requirepass` and Upstash use. */
  readonly username?: string;
  readonly password?: string;
  /** rediss:// */
  readonly tls: boolean;
}

const DEFAULT_PORT = 6379;

/** The URL with its password masked, for messages. */
function masked(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}

/** Parses a redis:// or rediss:// URL; `where` names its source in the error message. */
export function parseRedisUrl(text: string, where: string): RedisTarget {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    // Never quote the text: it is a secret's value and may hold the password.
    throw new EnvError(`${where} is not a URL; expected rediss://default:<password>@host:port`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new EnvError(`${where} must be a redis:// or rediss:// URL, got ${url.protocol}//...`);
  }
  if (url.hostname === '') throw new EnvError(`${where} has no host: ${masked(url)}`);
  const port = url.port === '' ? DEFAULT_PORT : Number(url.port);
  if (url.pathname !== '' && url.pathname !== '/' && url.pathname !== '/0') {
    // Upstash and the lab use database 0; a SELECT would cost every new connection a round trip.
    throw new EnvError(`${where} selects a database (${url.pathname}); only database 0 is supported`);
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    username: url.username === '' ? undefined : decodeURIComponent(url.username),
    password: url.password === '' ? undefined : decodeURIComponent(url.password),
    tls: url.protocol === 'rediss:',
  };
}

/** The secret string is the URL itself, or JSON `{"url": "..."}`. */
export function redisUrlFromSecretString(secret: string | undefined, secretId: string): RedisTarget {
  const where = `the secret ${secretId}`;
  if (secret === undefined || secret.trim() === '') {
    throw new EnvError(`${where} has no SecretString; store rediss://default:<password>@host:port in it`);
  }
  const text = secret.trim();
  if (!text.startsWith('{')) return parseRedisUrl(text, where);
  let url: unknown;
  try {
    url = (JSON.parse(text) as { url?: unknown }).url;
  } catch {
    throw new EnvError(`${where} looks like JSON but does not parse; expected {"url": "rediss://..."}`);
  }
  if (typeof url !== 'string') throw new EnvError(`${where} is JSON without a string "url" field`);
  return parseRedisUrl(url, `the "url" field of ${where}`);
}

/**
 * Reads the secret through the AWS Parameters and Secrets Lambda Extension (no SDK in the
 * bundle). Call it during an invocation, not at module scope: the extension serves INVOKE only.
 */
export async function readRedisSecret(
  secretId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RedisTarget> {
  return redisUrlFromSecretString(await readSecretViaExtension(secretId, env), secretId);
}
