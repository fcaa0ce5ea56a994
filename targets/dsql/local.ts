/**
 * Aurora DSQL locally: a real PostgreSQL (local/engines/postgres.ts) at repeatable read, on a
 * private Unix socket behind
 * the DSQL front (targets/dsql/front.ts: IAM token check, DSQL's dialect) and the network
 * model speaking PostgreSQL's SSLRequest. Functions reach it as `localhost:<model port>` (the
 * name the lab certificate and their tokens carry) instead of `<id>.dsql.<region>.on.aws:5432`.
 * The schema, index and role are made by the lab's own custom resource bundle, as CloudFormation
 * would run it. The IAM GRANT resource is not run locally: it lives in the API stack with the
 * functions' role ARNs, and locally every function signs with the same key.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { postgresHealth } from '../../local/engines/health';
import { checkPostgres, type PostgresEngine, startPostgres } from '../../local/engines/postgres';
import { LOCAL_CALLER } from '../../local/lab-defaults';
import { labDataDir, labTempDir } from '../../local/run-dir';
import { type LocalTarget, localName, withEngine } from '../../local/targets/types';
import { LOCAL_CREDENTIALS } from '../dynamodb/create-table';
import { type DsqlFront, startDsqlFront } from './front';

/** The endpoint name functions connect to and sign their tokens for. */
export const LOCAL_DSQL_HOST = 'localhost';
const CLUSTER_TYPE = 'AWS::DSQL::Cluster';

/** A cluster identifier as DSQL makes them: lower-case letters and digits. */
export const localClusterId = (stack: string, logicalId: string): string =>
  localName(stack, logicalId)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

export const dsqlTarget: LocalTarget = {
  findEngine: checkPostgres,
  async start(opts) {
    // Without --data: a cluster in the run data that survives restarts, removed at stop.
    const durable = opts.dataDir !== undefined;
    const dataDir = opts.dataDir ? join(opts.dataDir, 'dsql') : await labDataDir('lab-dsql-');
    // The server's private socket directory: ours, so a restart keeps the path the front uses.
    const socketDir = await labTempDir('lab-pgsock-');
    const start = () =>
      startPostgres({
        dataDir,
        socketDir,
        durable,
        asyncCommit: opts.inMemory,
        idleTimeoutS: opts.idleTimeoutS,
        log: opts.log,
      });
    let engine: PostgresEngine;
    let front: DsqlFront;
    try {
      engine = await start();
      front = await startDsqlFront({
        backendSocket: engine.socketPath,
        expectedHost: LOCAL_DSQL_HOST,
        credentials: [LOCAL_CREDENTIALS, LOCAL_CALLER],
        log: opts.log,
      });
    } catch (error) {
      if (!durable) await rm(dataDir, { recursive: true, force: true });
      await rm(socketDir, { recursive: true, force: true });
      throw error;
    }
    const env = (port: number) => ({ DSQL_ENDPOINT: LOCAL_DSQL_HOST, DSQL_PORT: String(port) });
    // The model forwards to the front, which checks tokens before it reaches PostgreSQL.
    return withEngine(() => ({ endpoint: engine.endpoint, port: front.port, pid: engine.pid }), {
      description: `${engine.version} behind a DSQL auth front`,
      tables: [],
      modelStartTls: 'postgres',
      nameOf: (stack, id, type) => (type === CLUSTER_TYPE ? localClusterId(stack, id) : undefined),
      functionEnv: (model) => env(model.port),
      // libpq's variables: psql, psycopg and node-postgres read them. The token is the password
      // (PGPASSWORD), made per connection: `aws dsql generate-db-connect-admin-auth-token` or
      // `npm run -s local -- token`. No AWS_ENDPOINT_URL_DSQL: the local cluster has no control plane.
      clientEnv: (model) => ({
        PGHOST: LOCAL_DSQL_HOST,
        PGPORT: String(model.port),
        PGUSER: 'admin',
        PGDATABASE: 'postgres',
        PGSSLMODE: 'verify-full',
        PGSSLROOTCERT: opts.certs.caCertPath,
      }),
      async prepare(model, runCustomResource) {
        await runCustomResource('Custom::DsqlSchema', env(model.port));
        opts.log('DSQL schema, index and role created by the custom resource bundle');
      },
      // SELECT 1 on PostgreSQL's own socket: the front runs in the lab's process.
      health: (signal) => postgresHealth(engine.socketDir, signal),
      // The superuser on the server's private socket, past the front (engine.endpoint).
      async seedStories(stories, signal) {
        const { seedPostgresAt } = await import('./seed-stories');
        await seedPostgresAt(engine.endpoint, stories, signal);
      },
      async restart() {
        await engine.stop();
        engine = await start();
      },
      async stop() {
        await front.close();
        await engine.stop();
        if (!durable) await rm(dataDir, { recursive: true, force: true });
        await rm(socketDir, { recursive: true, force: true });
      },
    });
  },
};
