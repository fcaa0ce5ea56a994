/**
 * The dsql target's local stack for tests, in this process: a real PostgreSQL, the DSQL front
 * (IAM token check, dialect) and the network model speaking PostgreSQL's SSLRequest, TLS
 * verified against the lab CA. Stores and the custom resource connect to `localhost:<model>`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { PROJECT_ROOT } from '../../core/paths';
import {
  findPostgresBin,
  type PostgresEngine,
  socketClient,
  startPostgres,
} from '../../local/engines/postgres';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { type NetworkModel, startNetworkModel } from '../../local/network/network-model';
import { ensureCertificates } from '../../local/tls/certificates';
import { type DsqlFront, startDsqlFront } from '../../targets/dsql/front';
import { type DsqlTokenSource, dsqlTokenSource } from '../../targets/dsql/token';

export const LOCAL_DSQL_HOST = 'localhost';

export interface DsqlLocal {
  engine: PostgresEngine;
  front: DsqlFront;
  model: NetworkModel;
  ca: Buffer;
  /** The lab CA's file (PGSSLROOTCERT for psql and psycopg). */
  caPath: string;
  /** Tokens the functions would sign (DbConnect) or the custom resource (DbConnectAdmin). */
  tokens(action: 'DbConnect' | 'DbConnectAdmin'): DsqlTokenSource;
  /**
   * A connection to PostgreSQL itself as its superuser, over the private socket (no model, no
   * front, none of DSQL's rules): for a test to look at or set up what it checks.
   */
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
  const socketDir = await mkdtemp(join(tmpdir(), 'lab-pgsock-'));
  let engine = await startPostgres({ dataDir: opts.dataDir, socketDir, idleTimeoutS: opts.idleTimeoutS });
  const front = await startDsqlFront({
    backendSocket: engine.socketPath,
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
    caPath: certs.caCertPath,
    tokens: (action) =>
      dsqlTokenSource({
        hostname: LOCAL_DSQL_HOST,
        region: LOCAL_REGION,
        action,
        credentials: LOCAL_CREDENTIALS,
      }),
    async admin() {
      const client = socketClient(socketDir);
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    async restart(how = 'stop') {
      if (how === 'kill') process.kill(engine.pid, 'SIGKILL');
      await engine.stop();
      engine = await startPostgres({
        dataDir: opts.dataDir,
        socketDir,
        idleTimeoutS: opts.idleTimeoutS,
      });
      local.engine = engine;
    },
    async stop() {
      await model.close();
      await front.close();
      await engine.stop();
      await rm(socketDir, { recursive: true, force: true });
    },
  };
  return local;
}
