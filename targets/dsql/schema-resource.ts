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
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import type pg from 'pg';
import { EnvError, requireEnv } from '../../lambda/shared/env';
import { destroyClient, newDsqlClient } from './client';
import { clusterEndpoint, type DsqlTokenOptions, dsqlTokenSource } from './token';

export const SCHEMA_RESOURCE_TYPE = 'Custom::DsqlSchema';
export const GRANTS_RESOURCE_TYPE = 'Custom::DsqlRoleGrants';
/** DDL on a new cluster can take seconds; the function has 90 s (targets/dsql/schema-construct.ts). */
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
/**
 * The news site's view count (news-top10): a column added to a table made before it existed.
 * DSQL adds a column only without constraints or a default, so a never-viewed row has NULL.
 */
export const VIEWS_COLUMN_DDL = 'ALTER TABLE person ADD COLUMN views bigint';
/** The top 10 reads this index backwards (ORDER BY views DESC LIMIT 10). */
export const BY_VIEWS_INDEX = 'person_by_views';
export const BY_VIEWS_INDEX_DDL = `CREATE INDEX ASYNC IF NOT EXISTS ${BY_VIEWS_INDEX} ON person (views)`;
/** Every index the functions read by, with the statement that builds it. */
const INDEXES: readonly { readonly name: string; readonly ddl: string }[] = [
  { name: BY_TYPE_INDEX, ddl: BY_TYPE_INDEX_DDL },
  { name: BY_VIEWS_INDEX, ddl: BY_VIEWS_INDEX_DDL },
];
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

/**
 * Time kept back from the function's remaining time when waiting for the index job: enough to
 * grant the role, close the connection and answer the Provider before Lambda ends the function.
 */
export const JOB_WAIT_MARGIN_MS = 15_000;
/** The wait when the remaining time is unknown (a caller without a Lambda context). */
export const DEFAULT_JOB_WAIT_MS = 60_000;

export interface SchemaOptions {
  /** Milliseconds the function has left (Lambda's context.getRemainingTimeInMillis). */
  readonly remainingMs?: () => number;
}

/** The job id `CREATE INDEX ASYNC` answers with (DSQL); none where the index is built at once (locally). */
function jobIdOf(result: pg.QueryResult): string | undefined {
  const row = result.rows?.[0] as Record<string, unknown> | undefined;
  const id = row?.job_id ?? (row ? Object.values(row)[0] : undefined);
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Blocks until DSQL's index job ends (`sys.wait_for_job`, true on success), within what the
 * function has left less JOB_WAIT_MARGIN_MS, so the resource answers before its timeout.
 * https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-create-index-async.html
 */
export async function waitForIndexJob(
  client: pg.Client,
  jobId: string,
  opts: SchemaOptions = {},
  index: string = BY_TYPE_INDEX,
): Promise<void> {
  const budgetMs = Math.min(
    DEFAULT_JOB_WAIT_MS,
    (opts.remainingMs?.() ?? DEFAULT_JOB_WAIT_MS + JOB_WAIT_MARGIN_MS) - JOB_WAIT_MARGIN_MS,
  );
  const pending = `index ${index}: build job ${jobId}`;
  if (budgetMs <= 0) throw new Error(`${pending} not awaited: no time left before the function's timeout`);
  let ok: unknown;
  try {
    // pg reads a per-query query_timeout (its types do not list it): this one query gets the budget.
    const query: pg.QueryConfig<string[]> & { query_timeout: number } = {
      text: 'SELECT sys.wait_for_job($1) AS ok',
      values: [jobId],
      query_timeout: budgetMs,
    };
    const out = await client.query<{ ok: unknown }>(query);
    ok = out.rows[0]?.ok;
  } catch (error) {
    if (/timeout/i.test((error as Error).message)) {
      throw new Error(
        `${pending} still running after ${budgetMs} ms; it goes on in DSQL (SELECT * FROM sys.jobs): deploy again once it has finished`,
        { cause: error },
      );
    }
    throw error;
  }
  if (ok !== true) throw new Error(`${pending} failed (SELECT * FROM sys.jobs says why)`);
}

/** DSQL's answer to a GRANT on a schema it manages (public, sys), measured: SQLSTATE 0A000. */
const SYSTEM_ENTITY = /feature not supported on system entity/;

/**
 * USAGE on schema public for the role. AWS's example grants USAGE on the schema before the
 * table privileges (https://docs.aws.amazon.com/aurora-dsql/latest/userguide/using-database-and-iam-roles.html);
 * PostgreSQL gives every role USAGE on public by default (PUBLIC holds it), and no DSQL page
 * says whether that default holds there. So the grant is sent; DSQL refuses grants on its
 * system schemas (0A000 "feature not supported on system entity"), which leaves public as DSQL
 * manages it, usable by every role: the functions' statements run as this role either way.
 */
async function grantSchemaUsage(client: pg.Client, role: string): Promise<void> {
  try {
    await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code !== '0A000' || !SYSTEM_ENTITY.test(e.message ?? '')) throw error;
    console.log(`USAGE on schema public not granted: ${e.message} (DSQL manages that schema)`);
  }
}

/** Creates what is missing: table, index (waiting for its job), role, privileges. */
export async function ensureSchema(
  client: pg.Client,
  role: string,
  opts: SchemaOptions = {},
): Promise<string[]> {
  const done: string[] = [];
  await client.query(PERSON_TABLE_DDL);
  done.push('table person');
  const views = await client.query(
    'SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = $2',
    ['person', 'views'],
  );
  if (views.rowCount === 0) {
    await client.query(VIEWS_COLUMN_DDL);
    done.push('column person.views');
  }
  for (const { name, ddl } of INDEXES) {
    const index = await client.query('SELECT 1 FROM pg_indexes WHERE tablename = $1 AND indexname = $2', [
      'person',
      name,
    ]);
    if (index.rowCount !== 0) continue;
    const jobId = jobIdOf(await client.query(ddl));
    // The functions read by this index: the stack is not done until the index is.
    if (jobId !== undefined) await waitForIndexJob(client, jobId, opts, name);
    done.push(`index ${name}`);
  }
  const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.rowCount === 0) {
    await client.query(`CREATE ROLE ${role} WITH LOGIN`);
    done.push(`role ${role}`);
  }
  await grantSchemaUsage(client, role);
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
  opts: SchemaOptions = {},
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
    const done = await ensureSchema(client, props.Role, opts);
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

export const handler = (
  event: CloudFormationCustomResourceEvent,
  context?: Context,
): Promise<ProviderResponse> =>
  onEvent(event, adminConnect(), {
    remainingMs: context ? () => context.getRemainingTimeInMillis() : undefined,
  });
