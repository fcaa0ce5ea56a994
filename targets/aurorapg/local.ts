/**
 * Aurora Serverless v2 PostgreSQL locally: the lab's PostgreSQL 16 (local/engines/postgres.ts)
 * on a private Unix socket, behind this folder's front (front.ts: RDS IAM tokens, the master
 * password, Aurora's session defaults, auto-pause and resume) and the network model speaking
 * PostgreSQL's SSLRequest. Functions reach it as `localhost:<model port>`; the schema and the
 * functions' user come from the custom resource's real bundle (schema.ts), which reads the
 * master secret from a Secrets Manager stand-in (secrets-stand-in.ts).
 *
 * Pause and resume follow the synthesized cluster: a MinCapacity of 0 pauses after its
 * SecondsUntilAutoPause; the resume's length (resume-model.ts defaults, from the Aurora guide)
 * and, for a test, the idle time can be changed by LAB_AURORA_PG_RESUME_MS,
 * LAB_AURORA_PG_LONG_RESUME_MS and LAB_AURORA_PG_AUTO_PAUSE_S.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Assembly } from '../../local/assembly/cloud-assembly';
import { postgresHealth } from '../../local/engines/health';
import {
  checkPostgres,
  type PostgresEngine,
  socketClient,
  startPostgres,
} from '../../local/engines/postgres';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { LOCAL_CALLER } from '../../local/lab-defaults';
import { labDataDir, labTempDir } from '../../local/run-dir';
import { type LocalTarget, localName, withEngine } from '../../local/targets/types';
import { type AuroraFront, startAuroraFront } from './front';
import type { ResumeSettings } from './resume-model';
import { SCHEMA_RESOURCE_TYPE } from './schema';
import { type SecretsStandIn, startSecretsStandIn } from './secrets-stand-in';
import { MASTER_USER } from './settings';

export const LOCAL_AURORA_HOST = 'localhost';
const CLUSTER = 'AWS::RDS::DBCluster';
const PROXY = 'AWS::RDS::DBProxy';
const SECRET_TYPES = ['AWS::SecretsManager::Secret', 'AWS::SecretsManager::SecretTargetAttachment'];
const ENDPOINT_ATTRIBUTES = [`${CLUSTER}#Endpoint.Address`, `${PROXY}#Endpoint`];

const secretArn = (stack: string, id: string) =>
  `arn:aws:secretsmanager:${LOCAL_REGION}:000000000000:secret:${localName(stack, id)}-AbCdEf`;

/** The pause the synthesized cluster asks for: its MinCapacity and SecondsUntilAutoPause. */
export function resumeSettingsOf(assembly: Assembly, env: NodeJS.ProcessEnv = process.env): ResumeSettings {
  const clusters = Object.values(assembly.templates).flatMap((t) =>
    Object.values(t.Resources).filter((r) => r.Type === CLUSTER),
  );
  const scaling = clusters[0]?.Properties?.ServerlessV2ScalingConfiguration as
    | { MinCapacity?: number; SecondsUntilAutoPause?: number }
    | undefined;
  const num = (k: string) => (env[k] === undefined || env[k] === '' ? undefined : Number(env[k]));
  const pauses = scaling?.MinCapacity === 0;
  const autoPauseS = pauses
    ? (num('LAB_AURORA_PG_AUTO_PAUSE_S') ?? scaling?.SecondsUntilAutoPause ?? 300)
    : undefined;
  return {
    ...(autoPauseS === undefined ? {} : { autoPauseS }),
    ...(num('LAB_AURORA_PG_RESUME_MS') === undefined ? {} : { shortMs: num('LAB_AURORA_PG_RESUME_MS') }),
    ...(num('LAB_AURORA_PG_LONG_RESUME_MS') === undefined
      ? {}
      : { longMs: num('LAB_AURORA_PG_LONG_RESUME_MS') }),
  };
}

/** What the Aurora master user and rds_iam are locally: the database's owner, may create users. */
async function prepareCluster(engine: PostgresEngine, password: string): Promise<void> {
  const admin = socketClient(engine.socketDir);
  await admin.connect();
  try {
    await admin.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rds_iam') THEN CREATE ROLE rds_iam NOLOGIN; END IF;
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${MASTER_USER}') THEN CREATE ROLE ${MASTER_USER} LOGIN CREATEROLE; END IF;
    END $$`);
    await admin.query(`GRANT rds_iam TO ${MASTER_USER} WITH ADMIN OPTION`);
    await admin.query(`ALTER DATABASE postgres OWNER TO ${MASTER_USER}`);
    await admin.query(`ALTER ROLE ${MASTER_USER} PASSWORD '${password}'`);
  } finally {
    await admin.end();
  }
}

export const auroraTarget: LocalTarget = {
  findEngine: checkPostgres,
  async start(opts) {
    const durable = opts.dataDir !== undefined;
    const dataDir = opts.dataDir ? join(opts.dataDir, 'aurorapg') : await labDataDir('lab-aurorapg-');
    const socketDir = await labTempDir('lab-pgsock-');
    const password = randomBytes(18).toString('base64url');
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
    let front: AuroraFront;
    let secrets: SecretsStandIn;
    let modelPort = 0;
    try {
      engine = await start();
      await prepareCluster(engine, password);
      front = await startAuroraFront({
        backendSocket: engine.socketPath,
        expectedHost: LOCAL_AURORA_HOST,
        credentials: [LOCAL_CREDENTIALS, LOCAL_CALLER],
        master: { user: MASTER_USER, password },
        resume: resumeSettingsOf(opts.assembly),
        log: opts.log,
      });
      secrets = await startSecretsStandIn((id) =>
        id.startsWith(`arn:aws:secretsmanager:${LOCAL_REGION}:000000000000:secret:`)
          ? JSON.stringify({
              engine: 'postgres',
              username: MASTER_USER,
              password,
              host: LOCAL_AURORA_HOST,
              port: modelPort,
              dbname: 'postgres',
            })
          : undefined,
      );
    } catch (error) {
      if (!durable) await rm(dataDir, { recursive: true, force: true });
      await rm(socketDir, { recursive: true, force: true });
      throw error;
    }
    const pauses = front.resume.pauses;
    const env = (port: number) => ({ AURORA_PG_HOST: LOCAL_AURORA_HOST, AURORA_PG_PORT: String(port) });
    return withEngine(() => ({ endpoint: engine.endpoint, port: front.port, pid: engine.pid }), {
      description: `${engine.version} as Aurora PostgreSQL (IAM auth${pauses ? ', auto-pause' : ''})`,
      tables: [],
      modelStartTls: 'postgres',
      nameOf: (stack, id, type) => {
        if (SECRET_TYPES.includes(type)) return secretArn(stack, id);
        if (ENDPOINT_ATTRIBUTES.includes(type)) return LOCAL_AURORA_HOST;
        if (type === CLUSTER || type === PROXY) return localName(stack, id).toLowerCase();
        return undefined;
      },
      functionEnv: (model) => {
        modelPort = model.port;
        return env(model.port);
      },
      // libpq's variables; the password is a token: `aws rds generate-db-auth-token` or `npm run -s local -- token`.
      clientEnv: (model) => ({
        PGHOST: LOCAL_AURORA_HOST,
        PGPORT: String(model.port),
        PGUSER: MASTER_USER,
        PGDATABASE: 'postgres',
        PGSSLMODE: 'verify-full',
        PGSSLROOTCERT: opts.certs.caCertPath,
      }),
      async prepare(model, runCustomResource) {
        modelPort = model.port;
        await runCustomResource(SCHEMA_RESOURCE_TYPE, {
          ...env(model.port),
          AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
        });
        opts.log(
          'Aurora PostgreSQL schema and the functions’ IAM user created by the custom resource bundle',
        );
      },
      health: (signal) => postgresHealth(engine.socketDir, signal),
      async restart() {
        await engine.stop();
        engine = await start();
      },
      async stop() {
        await secrets.close();
        await front.close();
        await engine.stop();
        if (!durable) await rm(dataDir, { recursive: true, force: true });
        await rm(socketDir, { recursive: true, force: true });
      },
    });
  },
};
