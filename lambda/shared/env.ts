/** Environment read once at init; a missing or bad value fails the init with a clear message. */

import { type KeepAliveVariant, TLS_MAX_VERSION_ENV, type TlsMaxVersion } from '../../core/lab-functions';

export type { KeepAliveVariant, TlsMaxVersion } from '../../core/lab-functions';

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvError';
  }
}

export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new EnvError(`Environment variable ${name} is required but not set`);
  }
  return value;
}

/** The stack sets KEEP_ALIVE from the `keepAlive` context flag; there is no silent default. */
export function readKeepAlive(env: NodeJS.ProcessEnv = process.env): KeepAliveVariant {
  const value = requireEnv('KEEP_ALIVE', env);
  if (value !== 'on' && value !== 'off') {
    throw new EnvError(`Environment variable KEEP_ALIVE must be "on" or "off", got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * The function's own key (core/lab-functions.ts functionKey), which the stack sets as LAB_FUNCTION:
 * the name its timing lines and metrics carry. The keep-alive variants of an operation run one
 * bundle, so this variable is what keeps their metrics apart.
 */
export function readLabFunction(env: NodeJS.ProcessEnv = process.env): string {
  return requireEnv('LAB_FUNCTION', env);
}

/**
 * The newest TLS version the function's database clients offer: `TLSv1.2` reproduces an article
 * whose AWS endpoints negotiated TLS 1.2 at most (experiments/conditions.ts); unset, Node's own
 * (1.3). Read by the SDK agents, the Redis client and the PostgreSQL client alike.
 */
export function readTlsMaxVersion(env: NodeJS.ProcessEnv = process.env): TlsMaxVersion | undefined {
  const value = env[TLS_MAX_VERSION_ENV];
  if (value === undefined || value.trim() === '') return undefined;
  if (value !== 'TLSv1.2' && value !== 'TLSv1.3') {
    throw new EnvError(
      `Environment variable ${TLS_MAX_VERSION_ENV} must be "TLSv1.2" or "TLSv1.3", got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
