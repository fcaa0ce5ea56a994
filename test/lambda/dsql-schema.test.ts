/** The DSQL schema and role-grant custom resource against a real PostgreSQL behind the DSQL front. */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { dsqlDialect } from '../../targets/dsql/front';
import {
  adminConnect,
  BY_TYPE_INDEX,
  BY_TYPE_INDEX_DDL,
  BY_VIEWS_INDEX,
  DEFAULT_JOB_WAIT_MS,
  ensureSchema,
  GRANTS_RESOURCE_TYPE,
  JOB_WAIT_MARGIN_MS,
  onEvent,
  SCHEMA_RESOURCE_TYPE,
  waitForIndexJob,
} from '../../targets/dsql/schema-resource';
import { type DsqlLocal, LOCAL_DSQL_HOST, startDsqlLocal } from '../support/dsql-local';

const ARN_A = 'arn:aws:iam::123456789012:role/LatencyLab-Api-DsqlCreateRole-A';
const ARN_B = 'arn:aws:iam::123456789012:role/LatencyLab-Api-DsqlGetRole-B';
let local: DsqlLocal;
let admin: pg.Client;

type Props = Record<string, unknown>;
const event = (
  type: string,
  requestType: 'Create' | 'Update' | 'Delete',
  props: Props,
  old?: Props,
): CloudFormationCustomResourceEvent =>
  ({
    RequestType: requestType,
    ResourceType: type,
    PhysicalResourceId: 'existing',
    ResourceProperties: { ServiceToken: 'local', ...props },
    OldResourceProperties: old ? { ServiceToken: 'local', ...old } : undefined,
  }) as unknown as CloudFormationCustomResourceEvent;

const connect = () =>
  adminConnect(
    { AWS_REGION: LOCAL_REGION, DSQL_ENDPOINT: LOCAL_DSQL_HOST, DSQL_PORT: String(local.model.port) },
    { ca: local.ca },
    LOCAL_CREDENTIALS,
  );

const mappings = async () =>
  (await admin.query<{ arn: string }>('SELECT arn FROM sys.iam_pg_role_mappings ORDER BY arn')).rows.map(
    (r) => r.arn,
  );

beforeAll(async () => {
  local = await startDsqlLocal();
  admin = await local.admin();
});
afterAll(async () => {
  await admin?.end();
  await local?.stop();
});

describe('Custom::DsqlSchema', () => {
  const props = { ClusterId: 'localcluster', Role: 'lab_app' };

  it('creates the table, its views column, both indexes and the role, and is idempotent', async () => {
    const first = await onEvent(event(SCHEMA_RESOURCE_TYPE, 'Create', props), connect());
    expect(first.PhysicalResourceId).toBe('dsql-schema:localcluster');
    await admin.query(
      "INSERT INTO person (govid, first_name, last_name, dob, govid_type) VALUES ('KEEP', 'A', 'B', '2000-01-01', 'T')",
    );
    for (const requestType of ['Create', 'Update'] as const) {
      expect(await onEvent(event(SCHEMA_RESOURCE_TYPE, requestType, props, props), connect())).toEqual(first);
    }
    expect((await admin.query('SELECT govid FROM person')).rows).toEqual([{ govid: 'KEEP' }]);
    const indexes = await admin.query(
      "SELECT indexname FROM pg_indexes WHERE tablename = 'person' ORDER BY 1",
    );
    expect(indexes.rows.map((r) => r.indexname)).toEqual([BY_TYPE_INDEX, BY_VIEWS_INDEX, 'person_pkey']);
    // The news site's count: added without a default (DSQL allows no constraint there), so NULL.
    const views = await admin.query("SELECT views FROM person WHERE govid = 'KEEP'");
    expect(views.rows).toEqual([{ views: null }]);
    const privileges = await admin.query(
      "SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = 'lab_app' AND table_name = 'person' ORDER BY 1",
    );
    expect(privileges.rows.map((r) => r.privilege_type)).toEqual(['INSERT', 'SELECT', 'UPDATE']);
    // USAGE on public: the grant is sent; DSQL (and the front) refuse grants on system schemas
    // with 0A000, and the role has USAGE there all the same (README: the lab_app grants).
    const usage = await admin.query("SELECT has_schema_privilege('lab_app', 'public', 'USAGE') AS usage");
    expect(usage.rows).toEqual([{ usage: true }]);
  });

  it('refuses bad properties before connecting, and deletes as a no-op', async () => {
    await expect(
      onEvent(event(SCHEMA_RESOURCE_TYPE, 'Create', { ...props, Role: 'admin' }), connect()),
    ).rejects.toThrow(/Role/);
    await expect(
      onEvent(event(SCHEMA_RESOURCE_TYPE, 'Create', { ...props, Role: 'x; DROP TABLE person' }), connect()),
    ).rejects.toThrow(/Role/);
    expect(await onEvent(event(SCHEMA_RESOURCE_TYPE, 'Delete', { Role: 'anything' }), connect())).toEqual({
      PhysicalResourceId: 'existing',
    });
  });
});

/**
 * DSQL answers CREATE INDEX ASYNC with a job id and sys.wait_for_job(id) blocks until the job
 * ends, true on success:
 * https://docs.aws.amazon.com/aurora-dsql/latest/userguide/working-with-create-index-async.html
 * The local front builds the index at once and has no jobs, so these cases drive the wait with
 * a client that answers as DSQL does.
 */
describe('waiting for the index job within the function timeout', () => {
  type Sent = { text: string; values?: unknown[]; query_timeout?: number };
  const dsqlLike = (wait: (q: Sent) => Promise<unknown>) => {
    const sent: Sent[] = [];
    const client = {
      query: async (q: string | Sent, values?: unknown[]) => {
        const query = typeof q === 'string' ? { text: q, values } : q;
        sent.push(query);
        if (query.text === BY_TYPE_INDEX_DDL) return { rows: [{ job_id: 'job-42' }], rowCount: 1 };
        if (query.text.includes('sys.wait_for_job'))
          return { rows: [{ ok: await wait(query) }], rowCount: 1 };
        return { rows: [], rowCount: 0 };
      },
    };
    return { client: client as unknown as pg.Client, sent };
  };

  it('waits for the job CREATE INDEX ASYNC started, then grants, within the time left', async () => {
    const { client, sent } = dsqlLike(async () => true);
    const done = await ensureSchema(client, 'lab_app', { remainingMs: () => 80_000 });
    expect(done).toContain(`index ${BY_TYPE_INDEX}`);
    const texts = sent.map((q) => q.text);
    const waited = sent.find((q) => q.text.includes('sys.wait_for_job'));
    expect(waited).toMatchObject({ values: ['job-42'], query_timeout: DEFAULT_JOB_WAIT_MS });
    // The grants come after the index is built.
    expect(texts.indexOf(waited?.text ?? '')).toBeLessThan(
      texts.indexOf('GRANT USAGE ON SCHEMA public TO lab_app'),
    );
  });

  it('bounds the wait by the time left less the margin, and says so when it runs out', async () => {
    const { client, sent } = dsqlLike(async (q) => {
      throw new Error(`Query read timeout after ${q.query_timeout}`);
    });
    await expect(waitForIndexJob(client, 'job-7', { remainingMs: () => 40_000 })).rejects.toThrow(
      /build job job-7 still running after 25000 ms.*sys\.jobs/,
    );
    expect(sent[0].query_timeout).toBe(40_000 - JOB_WAIT_MARGIN_MS);
    await expect(waitForIndexJob(client, 'job-8', { remainingMs: () => JOB_WAIT_MARGIN_MS })).rejects.toThrow(
      /no time left/,
    );
    expect(sent).toHaveLength(1);
  });

  it('fails the resource when the job failed', async () => {
    const { client } = dsqlLike(async () => false);
    await expect(waitForIndexJob(client, 'job-9')).rejects.toThrow(/build job job-9 failed/);
  });
});

describe('Custom::DsqlRoleGrants', () => {
  const props = { ClusterId: 'localcluster', Role: 'lab_app' };

  it('grants each role ARN once, revokes what an update drops, and all on delete', async () => {
    await onEvent(event(GRANTS_RESOURCE_TYPE, 'Create', { ...props, RoleArns: [ARN_A, ARN_B] }), connect());
    await onEvent(event(GRANTS_RESOURCE_TYPE, 'Create', { ...props, RoleArns: [ARN_A, ARN_B] }), connect());
    expect(await mappings()).toEqual([ARN_A, ARN_B]);
    await onEvent(
      event(
        GRANTS_RESOURCE_TYPE,
        'Update',
        { ...props, RoleArns: [ARN_A] },
        { ...props, RoleArns: [ARN_A, ARN_B] },
      ),
      connect(),
    );
    expect(await mappings()).toEqual([ARN_A]);
    await onEvent(event(GRANTS_RESOURCE_TYPE, 'Delete', { ...props, RoleArns: [ARN_A] }), connect());
    expect(await mappings()).toEqual([]);
  });

  it('refuses anything but IAM role ARNs: the ARN is a literal in AWS IAM GRANT', async () => {
    await expect(
      onEvent(
        event(GRANTS_RESOURCE_TYPE, 'Create', {
          ...props,
          RoleArns: ["arn:aws:iam::123456789012:role/x'; DROP TABLE person; --"],
        }),
        connect(),
      ),
    ).rejects.toThrow(/RoleArns/);
  });
});

describe('the local DSQL dialect', () => {
  it('rewrites CREATE INDEX ASYNC and AWS IAM GRANT/REVOKE, and nothing else', () => {
    expect(dsqlDialect('CREATE INDEX ASYNC IF NOT EXISTS i ON person (a)')).toBe(
      'CREATE INDEX IF NOT EXISTS i ON person (a)',
    );
    expect(dsqlDialect(`AWS IAM GRANT lab_app TO '${ARN_A}'`)).toMatch(
      /^INSERT INTO sys\.iam_pg_role_mappings/,
    );
    expect(dsqlDialect(`AWS IAM REVOKE lab_app FROM '${ARN_A}'`)).toMatch(
      /^DELETE FROM sys\.iam_pg_role_mappings/,
    );
    expect(dsqlDialect('SELECT 1')).toBe('SELECT 1');
  });
});
