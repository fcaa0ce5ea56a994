import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { RICH_FLAGS, synthLab } from '../support/synth';

type Resource = { Type: string; Properties: Record<string, unknown>; DependsOn?: unknown };

function resources(t: Template, type: string): [string, Resource][] {
  return Object.entries(t.findResources(type)) as [string, Resource][];
}

/** Lab functions only (the custom resource handler lives in the data stack). */
function labFunctions(t: Template): [string, Resource][] {
  return resources(t, 'AWS::Lambda::Function').filter(([, r]) =>
    String(r.Properties.Description ?? '').startsWith('Latency lab '),
  );
}

function envOf(r: Resource): Record<string, string> {
  return (r.Properties.Environment as { Variables: Record<string, string> }).Variables;
}

/** Every action granted to the role a function uses. */
function actionsOfFunction(t: Template, fnLogicalId: string): string[] {
  const fn = t.toJSON().Resources[fnLogicalId] as Resource;
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const actions: string[] = [];
  for (const [, policy] of resources(t, 'AWS::IAM::Policy')) {
    const roles = policy.Properties.Roles as { Ref: string }[];
    if (!roles.some((r) => r.Ref === roleId)) continue;
    const doc = policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] };
    for (const s of doc.Statement) actions.push(...[s.Action].flat());
  }
  return actions;
}

describe('keep-alive flag', () => {
  it.each([
    ['on', ['on']],
    ['off', ['off']],
  ])('keepAlive=%s sets KEEP_ALIVE=%s on every function', (flag, expected) => {
    const { api } = synthLab({ keepAlive: flag });
    const fns = labFunctions(api);
    expect(fns).toHaveLength(2);
    expect(new Set(fns.map(([, r]) => envOf(r).KEEP_ALIVE))).toEqual(new Set(expected));
  });

  it('keepAlive=both deploys each function twice, side by side on distinct routes', () => {
    const { api, stacks } = synthLab({ keepAlive: 'both' });
    const fns = labFunctions(api);
    expect(fns.map(([, r]) => `${envOf(r).LAB_FUNCTION}=${envOf(r).KEEP_ALIVE}`).sort()).toEqual([
      'dynamodb-create-keepalive-off=off',
      'dynamodb-create-keepalive-on=on',
      'dynamodb-get-keepalive-off=off',
      'dynamodb-get-keepalive-on=on',
    ]);
    expect(stacks.api.functions.map((f) => `${f.spec.method} ${f.spec.path}`).sort()).toEqual([
      'GET /dynamodb/keepalive-off/person/{govId}',
      'GET /dynamodb/keepalive-on/person/{govId}',
      'POST /dynamodb/keepalive-off/person',
      'POST /dynamodb/keepalive-on/person',
    ]);
    const parts = resources(api, 'AWS::ApiGateway::Resource').map(([, r]) => r.Properties.PathPart);
    expect(parts).toEqual(expect.arrayContaining(['keepalive-on', 'keepalive-off', 'person', '{govId}']));
  });
});

describe('functions', () => {
  it('run nodejs24.x on arm64 with memory, tracing and log retention from the flags', () => {
    const { api } = synthLab({ memorySize: '1024', tracing: 'true', logRetentionDays: '14' });
    for (const [, r] of labFunctions(api)) {
      expect(r.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
      });
      expect(r.Properties.LoggingConfig).toMatchObject({ LogGroup: { Ref: expect.any(String) } });
      expect(envOf(r).NODE_OPTIONS).toBeUndefined();
    }
    api.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    api.hasResourceProperties('AWS::ApiGateway::Stage', { TracingEnabled: true });
  });

  it('default flags: no tracing, 512 MB', () => {
    const { api } = synthLab();
    for (const [, r] of labFunctions(api)) {
      expect(r.Properties.MemorySize).toBe(512);
      expect(r.Properties.TracingConfig).toBeUndefined();
    }
  });

  it('sourceMaps=true enables them at run time', () => {
    const { api } = synthLab({ sourceMaps: 'true' });
    for (const [, r] of labFunctions(api)) expect(envOf(r).NODE_OPTIONS).toBe('--enable-source-maps');
  });

  it('outputs the API URL and every function name and ARN', () => {
    const { api } = synthLab(RICH_FLAGS);
    const outputs = Object.keys(api.toJSON().Outputs);
    expect(outputs).toContain('ApiUrl');
    for (const id of [
      'DynamodbCreateKeepaliveOn',
      'DynamodbGetKeepaliveOff',
      'QldbCreateKeepaliveOff',
      'QldbGetKeepaliveOn',
    ]) {
      expect(outputs).toEqual(expect.arrayContaining([`${id}Name`, `${id}Arn`, `${id}LogGroup`]));
    }
    expect(labFunctions(api)).toHaveLength(8);
  });
});

describe('provisioned concurrency', () => {
  it('puts a live alias with that many provisioned executions in front of each function, and the API calls it', () => {
    const { api } = synthLab({ provisionedConcurrency: '2', keepAlive: 'both' });
    const aliases = resources(api, 'AWS::Lambda::Alias');
    expect(aliases).toHaveLength(4);
    for (const [, a] of aliases) {
      expect(a.Properties).toMatchObject({
        Name: 'live',
        ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 },
      });
    }
    const aliasIds = new Set(aliases.map(([id]) => id));
    const methods = resources(api, 'AWS::ApiGateway::Method');
    expect(methods).toHaveLength(4);
    for (const [, m] of methods) {
      const uri = JSON.stringify((m.Properties.Integration as { Uri: unknown }).Uri);
      expect([...aliasIds].some((id) => uri.includes(`"${id}"`))).toBe(true);
    }
    // API Gateway may invoke the alias, not just the unqualified function.
    const permissions = resources(api, 'AWS::Lambda::Permission').map(([, p]) =>
      JSON.stringify(p.Properties.FunctionName),
    );
    for (const id of aliasIds) expect(permissions.some((p) => p.includes(`"${id}"`))).toBe(true);
  });

  it('0 means no alias and the API calls the function', () => {
    const { api } = synthLab({ provisionedConcurrency: '0' });
    api.resourceCountIs('AWS::Lambda::Alias', 0);
    api.resourceCountIs('AWS::Lambda::Version', 0);
  });
});

describe('least privilege', () => {
  const READ_ONLY = new Set([
    'dynamodb:GetItem',
    'qldb:SendCommand',
    'qldb:PartiQLSelect',
    'xray:PutTraceSegments',
    'xray:PutTelemetryRecords',
    // Writing its own log lines is not a write to the data.
    'logs:CreateLogStream',
    'logs:PutLogEvents',
  ]);

  it('get functions may only read; create functions write once and read nothing else', () => {
    const { api } = synthLab(RICH_FLAGS);
    let gets = 0;
    for (const [id, r] of labFunctions(api)) {
      const actions = actionsOfFunction(api, id);
      expect(actions.length).toBeGreaterThan(0);
      if (envOf(r).LAB_FUNCTION.includes('-get')) {
        gets += 1;
        for (const a of actions) expect(READ_ONLY.has(a), `${envOf(r).LAB_FUNCTION} has ${a}`).toBe(true);
      } else {
        expect(actions).not.toContain('dynamodb:UpdateItem');
        expect(actions).not.toContain('dynamodb:DeleteItem');
        expect(actions).not.toContain('qldb:PartiQLDelete');
        expect(actions).not.toContain('qldb:PartiQLUpdate');
      }
    }
    expect(gets).toBe(4);
  });

  it('QLDB functions get SendCommand on this ledger and PartiQL on this table only', () => {
    const { api } = synthLab(RICH_FLAGS);
    const qldbStatements = resources(api, 'AWS::IAM::Policy')
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement)
      .filter((s) => [s.Action].flat().some((a) => String(a).startsWith('qldb:')));
    expect(qldbStatements.length).toBeGreaterThan(0);
    for (const s of qldbStatements) {
      const resource = JSON.stringify(s.Resource);
      expect(resource).not.toBe('"*"');
      expect(resource).toContain(':ledger/');
      if ([s.Action].flat().some((a) => String(a).startsWith('qldb:PartiQL'))) {
        // The table id comes from the custom resource, so the ARN names exactly one table.
        expect(resource).toContain('/table/');
        expect(resource).toContain('PersonTableId');
      }
    }
  });
});

describe('data stack', () => {
  it('Person table: GovId key, on demand, point-in-time recovery', () => {
    const { data } = synthLab();
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'GovId', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'GovId', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    data.resourceCountIs('AWS::QLDB::Ledger', 0);
    data.resourceCountIs('Custom::QldbTables', 0);
  });

  it('removalPolicy=retain keeps the table and protects the ledger', () => {
    const { data } = synthLab({ removalPolicy: 'retain', targets: 'dynamodb,qldb' });
    data.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain' });
    data.hasResourceProperties('AWS::QLDB::Ledger', { DeletionProtection: true });
  });

  it('the QLDB tables custom resource gets the ledger, tables and indexes as properties', () => {
    const { data } = synthLab({ targets: 'dynamodb,qldb' });
    const [ledgerId] = Object.keys(data.findResources('AWS::QLDB::Ledger'));
    data.hasResourceProperties('Custom::QldbTables', {
      ServiceToken: Match.anyValue(),
      LedgerName: { Ref: ledgerId },
      Tables: ['Person'],
      Indexes: [{ Table: 'Person', Attribute: 'GovId' }],
    });
    data.hasResourceProperties('AWS::QLDB::Ledger', { PermissionsMode: 'STANDARD' });
  });
});

describe('power tuning', () => {
  it('deploys the pinned official application, scoped to this app functions', () => {
    const { powerTuning, stacks } = synthLab();
    expect(powerTuning).toBeDefined();
    powerTuning?.hasResourceProperties('AWS::Serverless::Application', {
      Location: {
        ApplicationId: 'arn:aws:serverlessrepo:us-east-1:451282441545:applications/aws-lambda-power-tuning',
        SemanticVersion: '4.4.0',
      },
      Parameters: {
        lambdaResource: {
          'Fn::Join': [
            '',
            Match.arrayWith([Match.stringLikeRegexp(`:function:${stacks.api.stackName}-\\*$`)]),
          ],
        },
      },
    });
    const resource = JSON.stringify(powerTuning?.toJSON().Resources);
    expect(resource).not.toMatch(/"lambdaResource":"\*"/);
    expect(Object.keys(powerTuning?.toJSON().Outputs ?? {})).toContain('StateMachineArn');
  });

  it('powerTuning=false leaves it out', () => {
    expect(synthLab({ powerTuning: 'false' }).powerTuning).toBeUndefined();
  });
});

describe('access', () => {
  it('every method requires IAM (SigV4); nothing is anonymous and no CORS preflight is open', () => {
    const { api } = synthLab(RICH_FLAGS);
    const methods = resources(api, 'AWS::ApiGateway::Method');
    expect(methods).toHaveLength(8);
    for (const [, m] of methods) {
      expect(m.Properties.AuthorizationType).toBe('AWS_IAM');
      expect(m.Properties.HttpMethod).not.toBe('OPTIONS');
    }
  });

  it('throttles the stage from the flags and writes access logs', () => {
    const { api } = synthLab({ apiRateLimit: '25', apiBurstLimit: '50' });
    api.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'lab',
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 25,
          ThrottlingBurstLimit: 50,
        }),
      ]),
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('function roles carry no AWS managed policy and log only to their own group', () => {
    const { api } = synthLab();
    for (const [, role] of resources(api, 'AWS::IAM::Role')) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});
