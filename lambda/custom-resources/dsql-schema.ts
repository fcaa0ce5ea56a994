/**
 * Custom resource (custom_resources.Provider onEvent) for an Aurora DSQL cluster, connecting
 * as `admin` with a DbConnectAdmin token. Two resource types share this function:
 *
 * - Custom::DsqlSchema (data stack): the person table, its by-type index (DSQL builds indexes
 *   with CREATE INDEX ASYNC) and the database role the functions log in as, with the table
 *   privileges their operations need. Create and Update are idempotent; Delete is a no-op
 *   (the cluster's own deletion removes the schema).
 * - Custom::DsqlRoleGrants (API stack, where the functions' IAM roles are): `AWS IAM GRANT
 *   <role> TO '<role arn>'` for each function role not yet mapped (read from
 *   sys.iam_pg_role_mappings), `AWS IAM REVOKE` for roles an Update dropped, all on Delete.
 *
 * DSQL runs one DDL statement per transaction, so every statement here is its own.
 */
import type { ConnectionOptions } from 'node:tls';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type pg from 'pg';
import { destroyClient, newDsqlClient } from '../shared/dsql-client';
import { clusterEndpoint, type DsqlTokenOptions, dsqlTokenSource } from '../shared/dsql-token';
import { EnvError, requireEnv } from '../shared/env';

export const SCHEMA_RESOURCE_TYPE = 'Custom::DsqlSchema';
export const GRANTS_RESOURCE_TYPE = 'Custom::DsqlRoleGrants';
/** DDL on a new cluster can take seconds; the function has 90 s (lib/constructs/dsql-schema.ts). */
export const CUSTOM_RESOURCE_QUERY_TIMEOUT_MS = 20_000;
const CUSTOM_RESOURCE_CONNECT_TIMEOUT_MS = 10_000;

export const PERSON_TABLE_DDL = `CREATE TABLE IF NOT EXISTS person (
  govid varchar(64) PRIMARY KEY,
  first_name varchar(100) NOT NULL,
  last_name varchar(100) NOT NULL,
  dob date NOT NULL,
  govid_type varchar(50) NOT NULL,
  address varchar(200),
  created_at timestamptz NOT NULL DEFAULT now()
)`;
export const BY_TYPE_INDEX = 'person_by_type';
export const BY_TYPE_INDEX_DDL = `CREATE INDEX ASYNC IF NOT EXISTS ${BY_TYPE_INDEX} ON person (govid_type, created_at)`;
/** What the functions' operations need: read, create, overwrite and update; never delete. */
export const ROLE_PRIVILEGES = 'SELECT, INSERT, UPDATE';

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
// Checked strictly: AWS IAM GRANT takes the ARN as a literal, not as a parameter.
const ROLE_ARN = /^arn:aws[a-z-]*:iam::[0-9]{12}:role\/[A-Za-z0-9+=,.@_/-]{1,512}$/;

export interface SchemaProperties {
  readonly ClusterId: string;
  readonly Role: string;
}

export interface GrantsProperties extends SchemaProperties {
  readonly RoleArns: readonly string[];
}

export interface ProviderResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

export function readSchemaProperties(raw: Record<string, unknown>): SchemaProperties {
  const { ClusterId, Role } = raw;
  if (typeof ClusterId !== 'string' || !/^[a-z0-9]{1,64}$/.test(ClusterId)) {
    throw new Error(`ClusterId must be a DSQL cluster identifier, got ${JSON.stringify(ClusterId)}`);
  }
  if (typeof Role !== 'string' || !ROLE_NAME.test(Role) || Role === 'admin') {
    throw new Error(
      `Role must be a lower-case database role name other than admin, got ${JSON.stringify(Role)}`,
    );
  }
  return { ClusterId, Role };
}

export function readGrantsProperties(raw: Record<string, unknown>): GrantsProperties {
  const base = readSchemaProperties(raw);
  const arns = raw.RoleArns;
  if (!Array.isArray(arns) || arns.some((a) => typeof a !== 'string' || !ROLE_ARN.test(a))) {
    throw new Error(`RoleArns must be a list of IAM role ARNs, got ${JSON.stringify(arns)}`);
  }
  return { ...base, RoleArns: [...new Set(arns as string[])] };
}

/** Creates what is missing: table, index, role, privileges. */
export async function ensureSchema(client: pg.Client, role: string): Promise<string[]> {
  const done: string[] = [];
  await client.query(PERSON_TABLE_DDL);
  done.push('table person');
  const index = await client.query('SELECT 1 FROM pg_indexes WHERE tablename = $1 AND indexname = $2', [
    'person',
    BY_TYPE_INDEX,
  ]);
  if (index.rowCount === 0) {
    await client.query(BY_TYPE_INDEX_DDL);
    done.push(`index ${BY_TYPE_INDEX}`);
  }
  const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.rowCount === 0) {
    await client.query(`CREATE ROLE ${role} WITH LOGIN`);
    done.push(`role ${role}`);
  }
  await client.query(`GRANT ${ROLE_PRIVILEGES} ON person TO ${role}`);
  return done;
}

/** Maps each ARN to the role (once), and unmaps `revoke`. */
export async function ensureGrants(
  client: pg.Client,
  role: string,
  grant: readonly string[],
  revoke: readonly string[] = [],
): Promise<void> {
  const mapped = await client.query<{ arn: string }>(
    'SELECT arn FROM sys.iam_pg_role_mappings WHERE pg_role_name = $1',
    [role],
  );
  const have = new Set(mapped.rows.map((r) => r.arn));
  for (const arn of grant) {
    if (!ROLE_ARN.test(arn)) throw new Error(`not an IAM role ARN: ${arn}`);
    if (!have.has(arn)) await client.query(`AWS IAM GRANT ${role} TO '${arn}'`);
  }
  for (const arn of revoke) {
    if (!ROLE_ARN.test(arn)) throw new Error(`not an IAM role ARN: ${arn}`);
    if (have.has(arn) && !grant.includes(arn)) await client.query(`AWS IAM REVOKE ${role} FROM '${arn}'`);
  }
}

export type AdminConnect = (clusterId: string) => Promise<pg.Client>;

export async function onEvent(
  event: CloudFormationCustomResourceEvent,
  connect: AdminConnect,
): Promise<ProviderResponse> {
  const raw = event.ResourceProperties as Record<string, unknown>;
  if (event.ResourceType === GRANTS_RESOURCE_TYPE) {
    if (event.RequestType === 'Delete') {
      // Never block a stack deletion: a cluster already gone has no mappings left to remove.
      try {
        const props = readGrantsProperties(raw);
        const client = await connect(props.ClusterId);
        try {
          await ensureGrants(client, props.Role, [], props.RoleArns);
        } finally {
          await client.end();
        }
      } catch (error) {
        console.log(`role grants not removed: ${(error as Error).message}`);
      }
      return { PhysicalResourceId: event.PhysicalResourceId };
    }
    const props = readGrantsProperties(raw);
    const old =
      event.RequestType === 'Update' && Array.isArray(event.OldResourceProperties.RoleArns)
        ? (event.OldResourceProperties.RoleArns as string[])
        : [];
    const client = await connect(props.ClusterId);
    try {
      await ensureGrants(client, props.Role, props.RoleArns, old);
    } finally {
      await client.end();
    }
    return {
      PhysicalResourceId: `dsql-grants:${props.ClusterId}:${props.Role}`,
      Data: { Granted: String(props.RoleArns.length) },
    };
  }
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const props = readSchemaProperties(raw);
  const client = await connect(props.ClusterId);
  try {
    const done = await ensureSchema(client, props.Role);
    console.log(`schema ensured: ${done.join(', ')}`);
  } finally {
    await client.end();
  }
  return {
    PhysicalResourceId: `dsql-schema:${props.ClusterId}`,
    Data: { Role: props.Role, Table: 'person' },
  };
}

/** Connects as admin: DSQL_ENDPOINT / DSQL_PORT override `<id>.dsql.<region>.on.aws:5432` (local lab). */
export function adminConnect(
  env: NodeJS.ProcessEnv = process.env,
  tls?: ConnectionOptions,
  credentials?: DsqlTokenOptions['credentials'],
): AdminConnect {
  const region = requireEnv('AWS_REGION', env);
  const port = Number(env.DSQL_PORT ?? 5432);
  if (!(Number.isInteger(port) && port > 0 && port < 65_536))
    throw new EnvError(`bad DSQL_PORT ${env.DSQL_PORT}`);
  return async (clusterId) => {
    const host = env.DSQL_ENDPOINT?.trim() || clusterEndpoint(clusterId, region);
    const tokens = dsqlTokenSource({ hostname: host, region, action: 'DbConnectAdmin', credentials });
    const client = newDsqlClient({
      endpoint: { host, port, user: 'admin' },
      password: () => tokens.token(),
      tls,
      connectTimeoutMs: CUSTOM_RESOURCE_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: CUSTOM_RESOURCE_QUERY_TIMEOUT_MS,
      onMessages: () => {},
    });
    client.on('error', () => {});
    try {
      await client.connect();
    } catch (error) {
      destroyClient(client);
      throw new Error(`DSQL connect to ${host}:${port} as admin failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return client;
  };
}

export const handler = (event: CloudFormationCustomResourceEvent): Promise<ProviderResponse> =>
  onEvent(event, adminConnect());
