/**
 * ElastiCache IAM authentication tokens: a SigV4-presigned `connect` request for the cache and
 * the user, sent as the AUTH password with the user id as the user name
 * (https://docs.aws.amazon.com/AmazonElastiCache/latest/dg/auth-iam.html, "Connecting"): GET
 * http://<cache name>/?Action=connect&User=<user id>&ResourceType=ServerlessCache, service
 * `elasticache`, valid 15 minutes, the token being the presigned URL without `http://`. Signed
 * from the function's own credentials with no network call. A token is checked when a connection
 * authenticates only (an IAM-authenticated connection lasts up to 12 hours), so one is reused
 * for every connection opened while it is valid and replaced before it expires.
 */
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** The token's lifetime: the page gives 15 minutes. */
export const TOKEN_LIFETIME_S = 900;
/** A cached token is replaced when less than this is left. */
export const TOKEN_REFRESH_MARGIN_S = 60;

export interface ValkeyTokenOptions {
  /** The serverless cache's name (lower-case): the signed request's host. */
  readonly cacheName: string;
  /** The ElastiCache user id. */
  readonly userId: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface ValkeyTokenSource {
  /** A token with more than the margin left: the cached one, else a new one. */
  token(): Promise<string>;
  /** The last token handed out, for a caller that must read it synchronously (undefined before the first). */
  current(): string | undefined;
  /** Tokens signed so far. */
  signed(): number;
}

export function valkeyTokenSource(opts: ValkeyTokenOptions): ValkeyTokenSource {
  const now = opts.now ?? Date.now;
  const signer = new SignatureV4({
    service: 'elasticache',
    region: opts.region,
    credentials: opts.credentials,
    sha256: Hash.bind(null, 'sha256'),
  });
  let cached: { token: string; refreshAt: number } | undefined;
  let signing: Promise<string> | undefined;
  let count = 0;
  const sign = async (): Promise<string> => {
    const issuedAt = now();
    const request = new HttpRequest({
      method: 'GET',
      protocol: 'http:',
      hostname: opts.cacheName,
      path: '/',
      query: { Action: 'connect', User: opts.userId, ResourceType: 'ServerlessCache' },
      headers: { host: opts.cacheName },
    });
    const signed = await signer.presign(request, {
      expiresIn: TOKEN_LIFETIME_S,
      signingDate: new Date(issuedAt),
    });
    const query = Object.entries(signed.query ?? {})
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join('&');
    count += 1;
    const token = `${opts.cacheName}/?${query}`;
    cached = { token, refreshAt: issuedAt + (TOKEN_LIFETIME_S - TOKEN_REFRESH_MARGIN_S) * 1000 };
    return token;
  };
  return {
    signed: () => count,
    current: () => cached?.token,
    token() {
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
      // Concurrent connects in one environment share one signing.
      signing ??= sign().finally(() => {
        signing = undefined;
      });
      return signing;
    },
  };
}
