/**
 * The aurorapg target's PersonStore: the same PostgreSQL connection management as the dsql
 * target (lambda/shared/dsql-store.ts: one kept connection per environment or one per call, a
 * dropped connection replaced once, SQLSTATE 22/23 answered as 400, bounded connect and
 * statements), over node-postgres, with an RDS IAM auth token as the password
 * (@aws-sdk/rds-signer: a SigV4-presigned `connect` for one database user, signed locally).
 *
 * What differs from DSQL: the token (service rds-db, host:port, the user in the token), the
 * bounds (a connect may wait out a resume from auto-pause, about 15 s; the whole call gets
 * DEADLINE_MS, below API Gateway's 29 s), and what it meters: no DPUs (Aurora bills capacity
 * over time, targets/aurorapg/cost.ts), but the resumes the local lab reports.
 */
import type { ConnectionOptions } from 'node:tls';
import { Signer } from '@aws-sdk/rds-signer';
import { BillMeter } from '../../lambda/shared/bill-meter';
import {
  EnvError,
  type KeepAliveVariant,
  readKeepAlive,
  readTlsMaxVersion,
  requireEnv,
} from '../../lambda/shared/env';
import { createDsqlStore, type DsqlPersonStore } from '../dsql/store';
import type { DsqlTokenSource } from '../dsql/token';
import { DEADLINE_MS } from './settings';
import { RESUME_MS, RESUMES } from './store-keys';

export const AURORA_PORT = 5432;
export const AURORA_DATABASE = 'postgres';
/** An RDS auth token is valid for 15 minutes. */
export const TOKEN_LIFETIME_S = 900;
const TOKEN_REFRESH_MARGIN_S = 60;
/** A connect may wait out a resume (about 15 s, more after a day paused). */
export const CONNECT_TIMEOUT_MS = 20_000;

/** The NOTICE the local stand-in sends after a resume (the lab's own, not Aurora's: see README). */
export const RESUME_NOTICE = /^aurorapg local: resumed from auto-pause after (\d+) ms/;

export interface RdsTokenOptions {
  readonly hostname: string;
  readonly port: number;
  readonly username: string;
  readonly region: string;
  readonly credentials?: ConstructorParameters<typeof Signer>[0]['credentials'];
  /** @default Date.now */
  readonly now?: () => number;
}

/** RDS IAM tokens, one reused for every connect while it has more than a minute left. */
export function rdsTokenSource(opts: RdsTokenOptions): DsqlTokenSource {
  const now = opts.now ?? Date.now;
  const signer = new Signer({
    hostname: opts.hostname,
    port: opts.port,
    username: opts.username,
    region: opts.region,
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
  });
  let cached: { token: string; refreshAt: number } | undefined;
  let signing: Promise<string> | undefined;
  let count = 0;
  return {
    signed: () => count,
    token() {
      if (cached && now() < cached.refreshAt) return Promise.resolve(cached.token);
      signing ??= (async () => {
        const issuedAt = now();
        const token = await signer.getAuthToken();
        count += 1;
        cached = { token, refreshAt: issuedAt + (TOKEN_LIFETIME_S - TOKEN_REFRESH_MARGIN_S) * 1000 };
        return token;
      })().finally(() => {
        signing = undefined;
      });
      return signing;
    },
  };
}

export interface AuroraEnv {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly region: string;
}

/** AURORA_PG_HOST (the writer or the proxy endpoint), AURORA_PG_PORT, AURORA_PG_USER, AWS_REGION. */
export function readAuroraEnv(env: NodeJS.ProcessEnv = process.env): AuroraEnv {
  const host = requireEnv('AURORA_PG_HOST', env);
  const user = requireEnv('AURORA_PG_USER', env);
  const region = requireEnv('AWS_REGION', env);
  const portText = env.AURORA_PG_PORT ?? String(AURORA_PORT);
  const port = Number(portText);
  if (!(Number.isInteger(port) && port > 0 && port < 65_536))
    throw new EnvError(
      `Environment variable AURORA_PG_PORT must be a TCP port, got ${JSON.stringify(portText)}`,
    );
  return { host, port, user, region };
}

export type AuroraPersonStore = DsqlPersonStore;

export interface AuroraStoreOptions extends AuroraEnv {
  readonly keepAlive: KeepAliveVariant;
  /** Extra TLS options (tests pass `ca`); deployed functions trust NODE_EXTRA_CA_CERTS. */
  readonly tls?: ConnectionOptions;
  readonly credentials?: RdsTokenOptions['credentials'];
}

export function createAuroraStore(opts: AuroraStoreOptions): AuroraPersonStore {
  const { host, port, user, region } = opts;
  const meter = new BillMeter();
  const inner = createDsqlStore({
    endpoint: { host, port, user, database: AURORA_DATABASE },
    tokens: rdsTokenSource({
      hostname: host,
      port,
      username: user,
      region,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
    }),
    keepAlive: opts.keepAlive,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    ...(opts.tls ? { tls: opts.tls } : {}),
    onClient: (client) =>
      client.on('notice', (notice) => {
        const m = RESUME_NOTICE.exec(notice.message ?? '');
        if (!m) return;
        meter.add(RESUMES, 1, 'measured');
        meter.add(RESUME_MS, Number(m[1]), 'measured');
      }),
  });
  // DSQL's DPU facts are not Aurora's bill: only the resumes are recorded.
  return { ...inner, name: 'Aurora PostgreSQL', deadlineMs: DEADLINE_MS, billed: () => meter.snapshot() };
}

/** The store a deployed function uses, built once per execution environment (no network at init). */
export function auroraStoreFromEnv(env: NodeJS.ProcessEnv = process.env): AuroraPersonStore {
  const tlsMaxVersion = readTlsMaxVersion(env);
  return createAuroraStore({
    ...readAuroraEnv(env),
    keepAlive: readKeepAlive(env),
    ...(tlsMaxVersion ? { tls: { maxVersion: tlsMaxVersion } } : {}),
  });
}
