/**
 * Custom::AuroraPgSchema (custom_resources.Provider onEvent, in the VPC): connects to the
 * cluster's writer as the master user with the password of the cluster's generated secret (read
 * from Secrets Manager), over verified TLS, and makes what the functions need, idempotently:
 * the person table and its indexes (the dsql target's table, plain PostgreSQL DDL), and the
 * functions' database user with LOGIN, membership in rds_iam (so it logs in with an IAM token
 * only) and the privileges their operations need. Delete is a no-op: the cluster's deletion
 * removes the schema.
 *
 * IAM database authentication for a user: CREATE USER ...; GRANT rds_iam TO ...
 * https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/UsingWithRDS.IAMDBAuth.DBAccounts.html
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import pg from 'pg';
import { PERSON_TABLE_DDL, ROLE_PRIVILEGES, VIEWS_COLUMN_DDL } from '../dsql/schema-resource';

export const SCHEMA_RESOURCE_TYPE = 'Custom::AuroraPgSchema';
const CONNECT_TIMEOUT_MS = 30_000;
const QUERY_TIMEOUT_MS = 20_000;

/** Aurora builds an index at once: plain CREATE INDEX (DSQL's is ASYNC). */
export const INDEX_DDL = [
  'CREATE INDEX IF NOT EXISTS person_by_type ON person (govid_type, created_at)',
  'CREATE INDEX IF NOT EXISTS person_by_views ON person (views)',
] as const;

const USER_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface SchemaProperties {
  /** The cluster's secret (username, password, host, port), as RDS writes it. */
  readonly SecretArn: string;
  /** The functions' database user. */
  readonly User: string;
}

export function readSchemaProperties(raw: Record<string, unknown>): SchemaProperties {
  const { SecretArn, User } = raw;
  if (typeof SecretArn !== 'string' || !/^arn:aws[a-z-]*:secretsmanager:/.test(SecretArn))
    throw new Error(`SecretArn must be a Secrets Manager secret ARN, got ${JSON.stringify(SecretArn)}`);
  if (typeof User !== 'string' || !USER_NAME.test(User))
    throw new Error(`User must be a lower-case database user name, got ${JSON.stringify(User)}`);
  return { SecretArn, User };
}

interface ClusterSecret {
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly port: number;
}

function parseSecret(text: string | undefined): ClusterSecret {
  const v = JSON.parse(text ?? '{}') as Record<string, unknown>;
  for (const k of ['username', 'password', 'host'])
    if (typeof v[k] !== 'string' || v[k] === '') throw new Error(`the cluster secret has no ${k}`);
  return {
    username: v.username as string,
    password: v.password as string,
    host: v.host as string,
    port: Number(v.port ?? 5432),
  };
}

/** Creates what is missing; returns what it made sure of, in order. */
export async function ensureSchema(client: pg.Client, user: string): Promise<string[]> {
  await client.query(PERSON_TABLE_DDL);
  const views = await client.query(
    'SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = $2',
    ['person', 'views'],
  );
  if (views.rowCount === 0) await client.query(VIEWS_COLUMN_DDL);
  for (const ddl of INDEX_DDL) await client.query(ddl);
  const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [user]);
  // The name is checked by USER_NAME: DDL takes no parameters.
  if (exists.rowCount === 0) await client.query(`CREATE USER ${user}`);
  await client.query(`GRANT rds_iam TO ${user}`);
  await client.query(`GRANT ${ROLE_PRIVILEGES} ON person TO ${user}`);
  return [
    'table person',
    'indexes person_by_type, person_by_views',
    `user ${user} (rds_iam, ${ROLE_PRIVILEGES})`,
  ];
}

export async function onEvent(
  event: CloudFormationCustomResourceEvent,
  secrets: SecretsManagerClient = new SecretsManagerClient({}),
): Promise<{ PhysicalResourceId: string; Data?: Record<string, string> }> {
  const props = readSchemaProperties(event.ResourceProperties);
  const physicalId = `aurorapg-schema-${props.User}`;
  if (event.RequestType === 'Delete') return { PhysicalResourceId: physicalId };
  const secret = parseSecret(
    (await secrets.send(new GetSecretValueCommand({ SecretId: props.SecretArn }))).SecretString,
  );
  const client = new pg.Client({
    host: secret.host,
    port: secret.port,
    user: secret.username,
    password: secret.password,
    database: 'postgres',
    // rds.force_ssl is on: TLS, verified (the RDS CAs come from NODE_EXTRA_CA_CERTS).
    ssl: { rejectUnauthorized: true },
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  client.on('error', () => {});
  await client.connect();
  try {
    const done = await ensureSchema(client, props.User);
    console.log(`aurorapg schema: ${done.join('; ')}`);
    return { PhysicalResourceId: physicalId, Data: { User: props.User } };
  } finally {
    await client.end().catch(() => {});
  }
}

export const handler = (event: CloudFormationCustomResourceEvent) => onEvent(event);
