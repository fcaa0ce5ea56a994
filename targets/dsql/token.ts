/**
 * Aurora DSQL IAM auth tokens: a SigV4-presigned `DbConnect` (or `DbConnectAdmin`) request for
 * the cluster endpoint, sent as the PostgreSQL password. DsqlSigner computes it locally from the
 * function's credentials: no network call. A token is only checked when a connection is opened,
 * so one is reused for every connection opened while it is valid, and replaced shortly before
 * it expires (signing costs ~0.1 ms, but it is still work at every keep-alive-off call).
 */
import { DsqlSigner } from '@aws-sdk/dsql-signer';

/** Lifetime asked of each token (DsqlSigner's default; DSQL accepts up to a week). */
export const TOKEN_LIFETIME_S = 900;
/** A cached token is replaced when less than this is left: room for a connect that is slow to start. */
export const TOKEN_REFRESH_MARGIN_S = 60;

export type DsqlAction = 'DbConnect' | 'DbConnectAdmin';

export interface DsqlTokenSource {
  /** A valid token for the action, from the cache when one has more than the margin left. */
  token(): Promise<string>;
  /** Tokens signed so far (tests: the cache works). */
  signed(): number;
}

export interface DsqlTokenOptions {
  /** The cluster endpoint the client connects to: the token is signed for this host. */
  readonly hostname: string;
  readonly region: string;
  readonly action: DsqlAction;
  /** @default TOKEN_LIFETIME_S */
  readonly expiresInS?: number;
  /** Credentials; @default the signer's chain (environment variables in a bundle) */
  readonly credentials?: ConstructorParameters<typeof DsqlSigner>[0]['credentials'];
  /** @default Date.now */
  readonly now?: () => number;
}

export function dsqlTokenSource(opts: DsqlTokenOptions): DsqlTokenSource {
  const expiresInS = opts.expiresInS ?? TOKEN_LIFETIME_S;
  const now = opts.now ?? Date.now;
  const signer = new DsqlSigner({
    hostname: opts.hostname,
    region: opts.region,
    expiresIn: expiresInS,
    // Absent, not undefined: the signer spreads its config over its defaults.
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
  });
  let cached: { token: string; refreshAt: number } | undefined;
  let signing: Promise<string> | undefined;
  let count = 0;
  const sign = async (): Promise<string> => {
    const issuedAt = now();
    const token =
      opts.action === 'DbConnectAdmin'
        ? await signer.getDbConnectAdminAuthToken()
        : await signer.getDbConnectAuthToken();
    count += 1;
    const margin = Math.min(TOKEN_REFRESH_MARGIN_S, expiresInS / 2);
    cached = { token, refreshAt: issuedAt + (expiresInS - margin) * 1000 };
    return token;
  };
  return {
    signed: () => count,
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

/** `<cluster id>.dsql.<region>.on.aws`, the endpoint DSQL gives every cluster. */
export function clusterEndpoint(clusterId: string, region: string): string {
  return `${clusterId}.dsql.${region}.on.aws`;
}
