/** The DSQL schema and role-grant custom resource against a real PostgreSQL behind the DSQL front. */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminConnect,
  BY_TYPE_INDEX,
  GRANTS_RESOURCE_TYPE,
  onEvent,
  SCHEMA_RESOURCE_TYPE,
} from '../../lambda/custom-resources/dsql-schema';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines';
import { dsqlDialect } from '../../local/engines/dsql-front';
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

  it('creates the table, index and role, and is idempotent', async () => {
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
    expect(indexes.rows.map((r) => r.indexname)).toEqual([BY_TYPE_INDEX, 'person_pkey']);
    const privileges = await admin.query(
      "SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = 'lab_app' AND table_name = 'person' ORDER BY 1",
    );
    expect(privileges.rows.map((r) => r.privilege_type)).toEqual(['INSERT', 'SELECT', 'UPDATE']);
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
