/**
 * The dsql target's local stack for tests, in this process: a real PostgreSQL, the DSQL front
 * (IAM token check, dialect) and the network model speaking PostgreSQL's SSLRequest, TLS
 * verified against the lab CA. Stores and the custom resource connect to `localhost:<model>`.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../../core/paths';
import { type DsqlTokenSource, dsqlTokenSource } from '../../lambda/shared/dsql-token';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines';
import { type DsqlFront, startDsqlFront } from '../../local/engines/dsql-front';
import {
  ADMIN_USER,
  findPostgresBin,
  type PostgresEngine,
  startPostgres,
} from '../../local/engines/postgres';
import { type NetworkModel, startNetworkModel } from '../../local/network/network-model';
import { ensureCertificates } from '../../local/tls/certificates';

export const LOCAL_DSQL_HOST = 'localhost';

export interface DsqlLocal {
  engine: PostgresEngine;
  front: DsqlFront;
  model: NetworkModel;
  ca: Buffer;
  /** Tokens the functions would sign (DbConnect) or the custom resource (DbConnectAdmin). */
  tokens(action: 'DbConnect' | 'DbConnectAdmin'): DsqlTokenSource;
  /** A plain connection to PostgreSQL itself as admin (no model, no front). */
  admin(): Promise<pg.Client>;
  /** Kills the server (SIGKILL) or stops it, and starts it again on the same port and data. */
  restart(how?: 'kill' | 'stop'): Promise<void>;
  stop(): Promise<void>;
}

export async function startDsqlLocal(
  opts: { rttMs?: number; dataDir?: string; idleTimeoutS?: number } = {},
): Promise<DsqlLocal> {
  if (!findPostgresBin())
    execFileSync('bash', [join(PROJECT_ROOT, 'scripts/ensure-postgres.sh')], { stdio: 'inherit' });
  const certs = await ensureCertificates(join(PROJECT_ROOT, '.cache', 'tls'));
  const ca = await readFile(certs.caCertPath);
  let engine = await startPostgres({ dataDir: opts.dataDir, idleTimeoutS: opts.idleTimeoutS });
  const front = await startDsqlFront({
    backendPort: engine.port,
    expectedHost: LOCAL_DSQL_HOST,
    credentials: LOCAL_CREDENTIALS,
  });
  const model = await startNetworkModel({
    upstreamHost: '127.0.0.1',
    upstreamPort: front.port,
    rttMs: opts.rttMs ?? 0,
    tls: certs,
    startTls: 'postgres',
  });
  const local: DsqlLocal = {
    engine,
    front,
    model,
    ca,
    tokens: (action) =>
      dsqlTokenSource({
        hostname: LOCAL_DSQL_HOST,
        region: LOCAL_REGION,
        action,
        credentials: LOCAL_CREDENTIALS,
      }),
    async admin() {
      const client = new pg.Client({
        host: '127.0.0.1',
        port: engine.port,
        user: ADMIN_USER,
        database: 'postgres',
      });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    async restart(how = 'stop') {
      if (how === 'kill') process.kill(engine.pid, 'SIGKILL');
      await engine.stop();
      engine = await startPostgres({
        dataDir: opts.dataDir,
        idleTimeoutS: opts.idleTimeoutS,
        port: engine.port,
      });
      local.engine = engine;
    },
    async stop() {
      await model.close();
      await front.close();
      await engine.stop();
    },
  };
  return local;
}
