import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AccessLogFormat, LogGroupLogDestination, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { type KeepAliveVariant, labFunctions as planned, type Target } from '../../core/lab-functions';
import { tableSchemaOf } from '../../targets/dynamodb/engine';
import { RICH_FLAGS, SAMPLE_REDIS_SECRET_ARN, synthLab } from '../support/synth';
import { PERSON_TABLE_SCHEMA } from '../support/test-engine';

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

/** How many functions the vocabulary plans (core/lab-functions.ts: view and top10 are not every target's or variant's). */
const count = (targets: readonly Target[], variants: readonly KeepAliveVariant[]) =>
  planned(targets, variants).length;
const BOTH: readonly KeepAliveVariant[] = ['on', 'off'];
const RICH_TARGETS = RICH_FLAGS.targets.split(',') as Target[];

function envOf(r: Resource): Record<string, string> {
  return (r.Properties.Environment as { Variables: Record<string, string> }).Variables;
}

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const roleOf = (t: Template, fnLogicalId: string): string => {
  const fn = t.toJSON().Resources[fnLogicalId] as Resource;
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
};

/**
 * Every statement that reaches the role a function uses: inline policies on the role, and
 * AWS::IAM::Policy and AWS::IAM::ManagedPolicy resources attached to it. AWS managed
 * policies are ARNs whose content the template cannot show, so they are returned apart.
 */
function grantsOfFunction(
  t: Template,
  fnLogicalId: string,
): { statements: Statement[]; managedPolicyArns: unknown[] } {
  const roleId = roleOf(t, fnLogicalId);
  const role = t.toJSON().Resources[roleId] as Resource;
  const docs: { Statement: Statement[] }[] = [];
  for (const p of (role.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]) {
    docs.push(p.PolicyDocument);
  }
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const [, policy] of resources(t, type)) {
      const roles = (policy.Properties.Roles ?? []) as { Ref: string }[];
      if (roles.some((r) => r.Ref === roleId))
        docs.push(policy.Properties.PolicyDocument as { Statement: Statement[] });
    }
  }
  return {
    statements: docs.flatMap((d) => d.Statement),
    managedPolicyArns: (role.Properties.ManagedPolicyArns ?? []) as unknown[],
  };
}

/** Every action granted to the role a function uses. */
function actionsOfFunction(t: Template, fnLogicalId: string): string[] {
  return grantsOfFunction(t, fnLogicalId).statements.flatMap((s) => [s.Action].flat());
}

describe('keep-alive flag', () => {
  it.each([
    ['on', ['on']],
    ['off', ['off']],
  ])('keepAlive=%s sets KEEP_ALIVE=%s on every function', (flag, expected) => {
    const { api } = synthLab({ keepAlive: flag });
    const fns = labFunctions(api);
    expect(fns).toHaveLength(count(['dynamodb'], [flag as KeepAliveVariant]));
    expect(new Set(fns.map(([, r]) => envOf(r).KEEP_ALIVE))).toEqual(new Set(expected));
  });

  it('keepAlive=both deploys each function twice, side by side on distinct routes', () => {
    const { api, stacks } = synthLab({ keepAlive: 'both' });
    const fns = labFunctions(api);
    expect(fns.map(([, r]) => `${envOf(r).LAB_FUNCTION}=${envOf(r).KEEP_ALIVE}`).sort()).toEqual(
      planned(['dynamodb'], BOTH)
        .map((f) => `${f.key}=${f.keepAlive}`)
        .sort(),
    );
    expect(stacks.api.functions.map((f) => `${f.spec.method} ${f.spec.path}`).sort()).toEqual([
      'GET /dynamodb/keepalive-off/person',
      'GET /dynamodb/keepalive-off/person/{govId}',
      'GET /dynamodb/keepalive-on/person',
      'GET /dynamodb/keepalive-on/person/{govId}',
      // The news site's (view, top10): keep-alive on only, as the article ran them.
      'GET /dynamodb/keepalive-on/top10',
      'PATCH /dynamodb/keepalive-off/person/{govId}',
      'PATCH /dynamodb/keepalive-on/person/{govId}',
      'POST /dynamodb/keepalive-off/person',
      'POST /dynamodb/keepalive-off/persons',
      'POST /dynamodb/keepalive-on/person',
      'POST /dynamodb/keepalive-on/person/{govId}/view',
      'POST /dynamodb/keepalive-on/persons',
      'PUT /dynamodb/keepalive-off/person/{govId}',
      'PUT /dynamodb/keepalive-on/person/{govId}',
    ]);
    const parts = resources(api, 'AWS::ApiGateway::Resource').map(([, r]) => r.Properties.PathPart);
    expect(parts).toEqual(expect.arrayContaining(['keepalive-on', 'keepalive-off', 'person', '{govId}']));
  });
});

describe('the news site’s functions (view, top10)', () => {
  it('DynamoDB, Redis and DSQL have them, keep-alive on only; QLDB has none; the API stays under 500 resources', () => {
    const { api } = synthLab(RICH_FLAGS);
    const news = labFunctions(api)
      .map(([, r]) => envOf(r).LAB_FUNCTION)
      .filter((k) => /-(view|top10)-/.test(k))
      .sort();
    expect(news).toEqual(
      ['dsql', 'dynamodb', 'redis'].flatMap((t) => [`${t}-top10-keepalive-on`, `${t}-view-keepalive-on`]),
    );
    // CloudFormation refuses a stack of more than 500 resources: every target, both variants fit.
    expect(Object.keys(api.toJSON().Resources).length).toBeLessThanOrEqual(500);
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
      });
      // One entry per target: the function's handler is the export named after its operation.
      expect(r.Properties.Handler).toBe(`index.${String(envOf(r).LAB_FUNCTION).split('-')[1]}`);
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
      'RedisCreateKeepaliveOn',
      'RedisGetKeepaliveOff',
      'DynamodbOverwriteKeepaliveOn',
      'QldbUpdateKeepaliveOff',
      'RedisQueryKeepaliveOn',
    ]) {
      expect(outputs).toEqual(expect.arrayContaining([`${id}Name`, `${id}Arn`, `${id}LogGroup`]));
    }
    // Every target x operation x keep-alive variant.
    expect(labFunctions(api)).toHaveLength(count(RICH_TARGETS, BOTH));
  });
});

describe('provisioned concurrency', () => {
  it('puts a live alias with that many provisioned executions in front of each function, and the API calls it', () => {
    const { api } = synthLab({ provisionedConcurrency: '2', keepAlive: 'both' });
    const aliases = resources(api, 'AWS::Lambda::Alias');
    expect(aliases).toHaveLength(count(['dynamodb'], BOTH));
    for (const [, a] of aliases) {
      expect(a.Properties).toMatchObject({
        Name: 'live',
        ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 },
      });
    }
    const aliasIds = new Set(aliases.map(([id]) => id));
    const methods = resources(api, 'AWS::ApiGateway::Method');
    expect(methods).toHaveLength(count(['dynamodb'], BOTH));
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
  const LOGS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
  const XRAY = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
  // Exactly what each function may do: a wider grant (dynamodb:*, a second table action) fails.
  const EXPECTED: Record<string, string[]> = {
    'dynamodb-create': ['dynamodb:PutItem'],
    'dynamodb-get': ['dynamodb:GetItem'],
    'dynamodb-overwrite': ['dynamodb:PutItem'],
    'dynamodb-update': ['dynamodb:UpdateItem'],
    'dynamodb-query': ['dynamodb:Query'],
    // Ten conditional puts: PutItem alone, as create.
    'dynamodb-put10': ['dynamodb:PutItem'],
    'dynamodb-view': ['dynamodb:UpdateItem'],
    'dynamodb-top10': ['dynamodb:Query'],
    'qldb-create': ['qldb:PartiQLInsert', 'qldb:PartiQLSelect', 'qldb:SendCommand'],
    'qldb-get': ['qldb:PartiQLSelect', 'qldb:SendCommand'],
    'qldb-overwrite': ['qldb:PartiQLDelete', 'qldb:PartiQLInsert', 'qldb:PartiQLSelect', 'qldb:SendCommand'],
    'qldb-update': ['qldb:PartiQLSelect', 'qldb:PartiQLUpdate', 'qldb:SendCommand'],
    'qldb-query': ['qldb:PartiQLSelect', 'qldb:SendCommand'],
    'redis-create': ['secretsmanager:GetSecretValue'],
    'redis-get': ['secretsmanager:GetSecretValue'],
    'redis-overwrite': ['secretsmanager:GetSecretValue'],
    'redis-update': ['secretsmanager:GetSecretValue'],
    'redis-query': ['secretsmanager:GetSecretValue'],
    'redis-view': ['secretsmanager:GetSecretValue'],
    'redis-top10': ['secretsmanager:GetSecretValue'],
    'dsql-create': ['dsql:DbConnect'],
    'dsql-get': ['dsql:DbConnect'],
    'dsql-overwrite': ['dsql:DbConnect'],
    'dsql-update': ['dsql:DbConnect'],
    'dsql-query': ['dsql:DbConnect'],
    'dsql-view': ['dsql:DbConnect'],
    'dsql-top10': ['dsql:DbConnect'],
  };
  /** Every planned function's key without its variant: view and top10 have keep-alive on only. */
  const plannedKeys = () =>
    planned(RICH_TARGETS, BOTH)
      .map((f) => f.key.replace(/-keepalive-(on|off)$/, ''))
      .sort();

  it.each([
    ['tracing on', RICH_FLAGS, [...LOGS, ...XRAY]],
    [
      'tracing off',
      { targets: 'dynamodb,qldb,redis,dsql', keepAlive: 'both', redisSecretArn: SAMPLE_REDIS_SECRET_ARN },
      LOGS,
    ],
  ])('with %s every function gets exactly its action set, every target and variant', (_n, flags, extra) => {
    const { api } = synthLab(flags);
    const seen: string[] = [];
    for (const [id, r] of labFunctions(api)) {
      const key = envOf(r).LAB_FUNCTION.replace(/-keepalive-(on|off)$/, '');
      seen.push(key);
      const { statements, managedPolicyArns } = grantsOfFunction(api, id);
      expect(managedPolicyArns, envOf(r).LAB_FUNCTION).toEqual([]);
      for (const st of statements) expect(st.Effect).toBe('Allow');
      const actions = [...new Set(actionsOfFunction(api, id))].sort();
      expect(actions, envOf(r).LAB_FUNCTION).toEqual([...EXPECTED[key], ...extra].sort());
    }
    expect(new Set(seen)).toEqual(new Set(Object.keys(EXPECTED)));
    expect(seen.sort()).toEqual(plannedKeys());
  });

  it('prewarmConnection: DynamoDB adds DescribeTable on the table alone, the others nothing; the env var everywhere but Redis', () => {
    const { api } = synthLab({
      targets: 'dynamodb,qldb,redis,dsql',
      keepAlive: 'both',
      redisSecretArn: SAMPLE_REDIS_SECRET_ARN,
      prewarmConnection: 'true',
    });
    const fns = labFunctions(api);
    expect(fns).toHaveLength(plannedKeys().length);
    for (const [id, r] of fns) {
      const key = envOf(r).LAB_FUNCTION.replace(/-keepalive-(on|off)$/, '');
      const dynamodb = key.startsWith('dynamodb-');
      const actions = [...new Set(actionsOfFunction(api, id))].sort();
      const expected = dynamodb ? [...EXPECTED[key], 'dynamodb:DescribeTable'] : EXPECTED[key];
      expect(actions, key).toEqual([...expected, ...LOGS].sort());
      expect(envOf(r).PREWARM_CONNECTION, key).toBe(key.startsWith('redis-') ? undefined : 'on');
      if (dynamodb) {
        const describeTable = grantsOfFunction(api, id).statements.filter((st) =>
          [st.Action].flat().includes('dynamodb:DescribeTable'),
        );
        expect(describeTable, key).toHaveLength(1);
        // The table's ARN itself (minimizePolicies may share the statement with the item action):
        // never an index, never a wildcard.
        expect(JSON.stringify(describeTable[0].Resource), key).not.toMatch(/index|\*/);
      }
    }
    // Off (the default): no variable, no extra grant.
    const { api: plain } = synthLab({ keepAlive: 'both' });
    for (const [id, r] of labFunctions(plain)) {
      expect(envOf(r).PREWARM_CONNECTION).toBeUndefined();
      expect(actionsOfFunction(plain, id)).not.toContain('dynamodb:DescribeTable');
    }
  });

  it('DynamoDB: every action on the table alone, except the queries, which may Query their one index only', () => {
    const { api } = synthLab({ keepAlive: 'both' });
    for (const [id, r] of labFunctions(api)) {
      const key = envOf(r).LAB_FUNCTION;
      const statements = grantsOfFunction(api, id).statements.filter((st) =>
        [st.Action].flat().some((a) => a.startsWith('dynamodb:')),
      );
      expect(statements, key).toHaveLength(1);
      const resource = JSON.stringify(statements[0].Resource);
      if (key.startsWith('dynamodb-query')) {
        expect(statements[0].Action, key).toBe('dynamodb:Query');
        // One ARN: the table's ARN with /index/<name> appended, never the table or index/*.
        expect(resource, key).toMatch(/"\/index\/ByGovIdTypeCreatedAt"\]\]\}$/);
        expect(resource, key).not.toContain('*');
      } else if (key.startsWith('dynamodb-top10')) {
        expect(statements[0].Action, key).toBe('dynamodb:Query');
        expect(resource, key).toMatch(/"\/index\/TopStories"\]\]\}$/);
        expect(resource, key).not.toContain('*');
      } else {
        expect(resource, key).not.toContain('/index/');
      }
    }
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
        // The table id comes from the custom resource (handed over as an SSM parameter), so
        // the ARN names exactly one table.
        expect(resource).toContain('/table/');
        expect(resource).toMatch(/"Ref":"SsmParameterValueLatencyLabDataqldbpersontableid/);
      }
    }
  });
});

describe('redis target', () => {
  const flags = { targets: 'dynamodb,redis', keepAlive: 'both', redisSecretArn: SAMPLE_REDIS_SECRET_ARN };

  it('creates no database: the data stack is what DynamoDB alone makes', () => {
    const { data } = synthLab(flags);
    const types = Object.values(data.toJSON().Resources as Record<string, Resource>).map((r) => r.Type);
    // The table and the two SSM parameters that hand its name and ARN to the API stack.
    expect(types.sort()).toEqual(['AWS::DynamoDB::Table', 'AWS::SSM::Parameter', 'AWS::SSM::Parameter']);
  });

  it('GetSecretValue on exactly the configured secret, the ARN in the environment, the extension as a layer', () => {
    const { api } = synthLab(flags);
    const redisFns = labFunctions(api).filter(([, r]) => envOf(r).LAB_FUNCTION.startsWith('redis-'));
    // Every operation, both keep-alive variants.
    expect(redisFns).toHaveLength(count(['redis'], BOTH));
    for (const [id, r] of redisFns) {
      expect(envOf(r).REDIS_SECRET_ARN).toBe(SAMPLE_REDIS_SECRET_ARN);
      expect(envOf(r).SECRETS_MANAGER_TIMEOUT_MILLIS).toBe('2000');
      const secretStatements = grantsOfFunction(api, id).statements.filter((st) =>
        [st.Action].flat().some((a) => a.startsWith('secretsmanager:')),
      );
      expect(secretStatements).toEqual([
        { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: SAMPLE_REDIS_SECRET_ARN },
      ]);
      // The region's layer ARN comes from CDK's table (a mapping for an environment-agnostic stack).
      expect(JSON.stringify(r.Properties.Layers)).toMatch(/FindInMap|Parameters-and-Secrets/);
    }
    for (const [, r] of labFunctions(api).filter(([, r]) => !envOf(r).LAB_FUNCTION.startsWith('redis-'))) {
      expect(r.Properties.Layers).toBeUndefined();
      expect(envOf(r).REDIS_SECRET_ARN).toBeUndefined();
    }
  });
});

describe('data stack', () => {
  it('Person table: GovId key, on demand, point-in-time recovery', () => {
    const { data } = synthLab();
    data.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'GovId', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    data.resourceCountIs('AWS::QLDB::Ledger', 0);
    data.resourceCountIs('Custom::QldbTables', 0);
  });

  it("the indexes: the query's (GovIdType, CreatedAt) and the top 10's sparse one (Section, Views), every attribute; the local lab and the handler tests make this very table", () => {
    const { data } = synthLab();
    const [[, table]] = resources(data, 'AWS::DynamoDB::Table');
    expect(table.Properties.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'ByGovIdTypeCreatedAt',
        KeySchema: [
          { AttributeName: 'GovIdType', KeyType: 'HASH' },
          { AttributeName: 'CreatedAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'TopStories',
        KeySchema: [
          { AttributeName: 'Section', KeyType: 'HASH' },
          { AttributeName: 'Views', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
    const byName = (a: { AttributeName?: string }, b: { AttributeName?: string }) =>
      String(a.AttributeName).localeCompare(String(b.AttributeName));
    const schema = tableSchemaOf(table.Properties);
    expect({ ...schema, attributeDefinitions: [...schema.attributeDefinitions].sort(byName) }).toEqual({
      ...PERSON_TABLE_SCHEMA,
      attributeDefinitions: [...PERSON_TABLE_SCHEMA.attributeDefinitions].sort(byName),
    });
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
      Indexes: [
        { Table: 'Person', Attribute: 'GovId' },
        { Table: 'Person', Attribute: 'GovIdType' },
      ],
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
    // Every target x operation x keep-alive variant.
    expect(methods).toHaveLength(count(RICH_TARGETS, BOTH));
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

  it.each([
    ['default flags', {}],
    ['every target and variant', RICH_FLAGS],
  ])(
    'with %s functions log only to their own log group, and nothing may write logs everywhere',
    (_n, flags) => {
      const { api, data } = synthLab(flags);
      const customResourceFns = resources(data, 'AWS::Lambda::Function').filter(([, r]) =>
        String(r.Properties.Description ?? '').startsWith('Creates the lab QLDB tables'),
      );
      for (const [t, fns] of [
        [api, labFunctions(api)],
        [data, customResourceFns],
      ] as const) {
        for (const [id, r] of fns) {
          const logGroup = (r.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
          expect(t.toJSON().Resources[logGroup].Type).toBe('AWS::Logs::LogGroup');
          const { statements, managedPolicyArns } = grantsOfFunction(t, id);
          // AWSLambdaBasicExecutionRole would let the function write to any log group.
          expect(managedPolicyArns, id).toEqual([]);
          const logStatements = statements.filter((st) =>
            [st.Action].flat().some((a) => a.startsWith('logs:')),
          );
          expect(logStatements, id).toHaveLength(1);
          expect([logStatements[0].Action].flat().sort()).toEqual([
            'logs:CreateLogStream',
            'logs:PutLogEvents',
          ]);
          // The group's Arn attribute is `arn:...:log-group:<its name>:*`: its own streams only.
          expect(logStatements[0].Resource, id).toEqual({ 'Fn::GetAtt': [logGroup, 'Arn'] });
        }
      }
      // No inline statement anywhere grants a logs action on every resource.
      for (const t of [api, data]) {
        for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy', 'AWS::IAM::Role']) {
          for (const [id, p] of resources(t, type)) {
            const docs =
              type === 'AWS::IAM::Role'
                ? ((p.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]).map(
                    (x) => x.PolicyDocument,
                  )
                : [p.Properties.PolicyDocument as { Statement: Statement[] }];
            for (const st of docs.flatMap((d) => d.Statement)) {
              const logs = [st.Action].flat().filter((a) => a.startsWith('logs:') || a === '*');
              if (logs.length > 0) expect([st.Resource].flat(), `${id} ${logs}`).not.toContain('*');
            }
          }
        }
      }
      // The one AWS managed policy in the API stack is the API Gateway account role's.
      const managed = resources(api, 'AWS::IAM::Role').filter(([, r]) => r.Properties.ManagedPolicyArns);
      expect(managed.map(([, r]) => JSON.stringify(r.Properties.AssumeRolePolicyDocument))).toEqual([
        expect.stringContaining('apigateway.amazonaws.com'),
      ]);
    },
  );
});

describe('API Gateway account CloudWatch role', () => {
  type Cfn = {
    Resources: Record<string, Resource & { DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
  };

  /** Every stage with access logs needs the region's account setting to name a CloudWatch role. */
  function checkAccessLogPrerequisite(templates: Template[]): number {
    const all = templates.map((t) => t.toJSON() as Cfn);
    const accountsInApp = all.flatMap((t) =>
      Object.values(t.Resources).filter((r) => r.Type === 'AWS::ApiGateway::Account'),
    );
    let stages = 0;
    for (const t of all) {
      for (const [, stage] of Object.entries(t.Resources)) {
        if (stage.Type !== 'AWS::ApiGateway::Stage' || !stage.Properties.AccessLogSetting) continue;
        stages += 1;
        expect(accountsInApp.length, 'an AWS::ApiGateway::Account in the app').toBeGreaterThan(0);
        // DependsOn only works within a stack: the Account must sit beside the stage.
        const accountIds = Object.entries(t.Resources)
          .filter(([, r]) => r.Type === 'AWS::ApiGateway::Account')
          .map(([id]) => id);
        expect(accountIds).toHaveLength(1);
        const [accountId] = accountIds;
        expect([stage.DependsOn ?? []].flat(), 'the stage is created after the Account').toContain(accountId);
        const account = t.Resources[accountId];
        const arn = account.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': [string, string] };
        expect(arn['Fn::GetAtt'][1]).toBe('Arn');
        const role = t.Resources[arn['Fn::GetAtt'][0]];
        expect(role.Type).toBe('AWS::IAM::Role');
        // cdk destroy must leave the role the account setting points at.
        expect(role.DeletionPolicy).toBe('Retain');
        expect(role.UpdateReplacePolicy).toBe('Retain');
        expect(account.DeletionPolicy).toBe('Retain');
        expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain(
          'apigateway.amazonaws.com',
        );
        expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(
          'service-role/AmazonAPIGatewayPushToCloudWatchLogs',
        );
      }
    }
    return stages;
  }

  it.each([
    ['default flags', {}],
    ['every target and variant', RICH_FLAGS],
  ])('with %s every stage with access logs comes after a retained account CloudWatch role', (_n, flags) => {
    const lab = synthLab(flags);
    const templates = [lab.data, lab.api, ...(lab.powerTuning ? [lab.powerTuning] : [])];
    expect(checkAccessLogPrerequisite(templates)).toBe(1);
  });

  it('the check fails on a stage with access logs and no account setting', () => {
    // CDK's CloudFormation validation: seconds per synth, and not what this case checks.
    const app = new App({ builtinCloudFormationValidation: false });
    const stack = new Stack(app, 'Bare');
    const api = new RestApi(stack, 'Api', {
      cloudWatchRole: false,
      deployOptions: {
        accessLogDestination: new LogGroupLogDestination(new LogGroup(stack, 'L')),
        accessLogFormat: AccessLogFormat.clf(),
      },
    });
    api.root.addMethod('GET');
    expect(() => checkAccessLogPrerequisite([Template.fromStack(stack)])).toThrowError(
      /AWS::ApiGateway::Account in the app/,
    );
  });
});

describe('dsql target', () => {
  const flags = { targets: 'dynamodb,dsql', keepAlive: 'both' };

  it('deploys a cluster whose deletion protection follows removalPolicy', () => {
    for (const [removalPolicy, protectedFlag, policy] of [
      ['destroy', false, 'Delete'],
      ['retain', true, 'Retain'],
    ] as const) {
      const { data } = synthLab({ ...flags, removalPolicy });
      const clusters = resources(data, 'AWS::DSQL::Cluster');
      expect(clusters).toHaveLength(1);
      expect(clusters[0][1].Properties.DeletionProtectionEnabled).toBe(protectedFlag);
      expect((clusters[0][1] as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe(policy);
    }
  });

  it('functions connect as the lab role to this cluster only; only the schema resource connects as admin', () => {
    const { data, api } = synthLab(flags);
    const [clusterId] = resources(data, 'AWS::DSQL::Cluster')[0];
    // The cluster id reaches the API stack through an SSM parameter, not an export.
    const handed = resources(data, 'AWS::SSM::Parameter').find(
      ([, r]) => r.Properties.Name === '/LatencyLab-Data/dsql/cluster-id',
    );
    expect(handed?.[1].Properties.Value).toEqual({ Ref: clusterId });
    const [parameterId, parameter] = Object.entries(api.toJSON().Parameters as Record<string, Resource>).find(
      ([, p]) => (p as unknown as { Default: string }).Default === '/LatencyLab-Data/dsql/cluster-id',
    ) ?? ['', undefined];
    expect(parameter?.Type).toBe('AWS::SSM::Parameter::Value<String>');
    const dsqlFns = labFunctions(api).filter(([, r]) => envOf(r).LAB_FUNCTION.startsWith('dsql-'));
    expect(dsqlFns).toHaveLength(count(['dsql'], BOTH));
    for (const [id, r] of dsqlFns) {
      expect(envOf(r)).toMatchObject({ DSQL_USER: 'lab_app', DSQL_CLUSTER_ID: { Ref: parameterId } });
      const dsqlStatements = grantsOfFunction(api, id).statements.filter((s) =>
        [s.Action].flat().some((a) => String(a).startsWith('dsql:')),
      );
      expect(dsqlStatements).toHaveLength(1);
      expect(dsqlStatements[0].Action).toBe('dsql:DbConnect');
      expect(JSON.stringify(dsqlStatements[0].Resource)).toMatch(/:cluster\/"/);
      expect(JSON.stringify(dsqlStatements[0].Resource)).toContain(`{"Ref":"${parameterId}"}`);
    }
    const policies = JSON.stringify([
      ...resources(data, 'AWS::IAM::Policy'),
      ...resources(api, 'AWS::IAM::Policy'),
    ]);
    expect(policies.match(/dsql:DbConnectAdmin/g)).toHaveLength(1);
    expect(policies).not.toMatch(/dsql:\*/);
  });

  it('makes the schema in the data stack and grants every function role in the API stack, 90 s each', () => {
    const { data, api } = synthLab(flags);
    const schema = resources(data, 'Custom::DsqlSchema');
    expect(schema).toHaveLength(1);
    expect(schema[0][1].Properties).toMatchObject({
      Role: 'lab_app',
      ClusterId: { Ref: expect.any(String) },
    });
    const grants = resources(api, 'Custom::DsqlRoleGrants');
    expect(grants).toHaveLength(1);
    const roleArns = grants[0][1].Properties.RoleArns as { 'Fn::GetAtt': [string, string] }[];
    const fnRoles = labFunctions(api)
      .filter(([, r]) => envOf(r).LAB_FUNCTION.startsWith('dsql-'))
      .map(([, r]) => (r.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]);
    expect(roleArns.map((a) => a['Fn::GetAtt'][0]).sort()).toEqual(fnRoles.sort());
    const onEvent = resources(data, 'AWS::Lambda::Function').filter(([, r]) =>
      String(r.Properties.Description ?? '').startsWith('Creates the lab DSQL schema'),
    );
    expect(onEvent).toHaveLength(1);
    expect(onEvent[0][1].Properties.Timeout).toBe(90);
  });
});

describe('dsql deploy order', () => {
  it('creates every dsql function, and so its version and provisioned alias, after its role is granted', () => {
    const { api } = synthLab({
      targets: 'dynamodb,dsql',
      keepAlive: 'both',
      provisionedConcurrency: '1',
      prewarmConnection: 'true',
    });
    const [grantsId] = resources(api, 'Custom::DsqlRoleGrants')[0];
    const all = api.toJSON().Resources as Record<string, Resource>;
    const dependsOn = (id: string): string[] => [all[id]?.DependsOn ?? []].flat() as string[];
    /** Everything `id` waits for, directly or through Ref / GetAtt / DependsOn. */
    const waitsFor = (id: string, seen = new Set<string>()): Set<string> => {
      for (const d of [
        ...dependsOn(id),
        ...JSON.stringify(all[id]?.Properties ?? {}).matchAll(/"(?:Ref|Fn::GetAtt)":\[?"([A-Za-z0-9]+)"/g),
      ].map((x) => (typeof x === 'string' ? x : x[1]))) {
        if (!seen.has(d) && all[d]) {
          seen.add(d);
          waitsFor(d, seen);
        }
      }
      return seen;
    };
    const dsqlFns = labFunctions(api).filter(([, r]) => envOf(r).LAB_FUNCTION.startsWith('dsql-'));
    expect(dsqlFns).toHaveLength(count(['dsql'], BOTH));
    for (const [id] of dsqlFns) expect(dependsOn(id), id).toContain(grantsId);
    const aliases = resources(api, 'AWS::Lambda::Alias').filter(([, r]) =>
      dsqlFns.some(([fnId]) => JSON.stringify(r.Properties.FunctionName).includes(fnId)),
    );
    expect(aliases).toHaveLength(dsqlFns.length);
    for (const [id, alias] of aliases) {
      expect(alias.Properties.ProvisionedConcurrencyConfig).toEqual({ ProvisionedConcurrentExecutions: 1 });
      expect(waitsFor(id).has(grantsId), id).toBe(true);
    }
  });
});

describe('QLDB tables custom resource', () => {
  it('gives CREATE TABLE and CREATE INDEX on a new ledger 90 s, within the Provider framework wait', () => {
    const { data, api } = synthLab({ targets: 'dynamodb,qldb' });
    const fns = resources(data, 'AWS::Lambda::Function');
    const onEvent = fns.filter(([, r]) =>
      String(r.Properties.Description ?? '').startsWith('Creates the lab QLDB tables'),
    );
    expect(onEvent).toHaveLength(1);
    expect(onEvent[0][1].Properties.Timeout).toBe(90);
    // The framework calls onEvent synchronously; its own timeout must be longer.
    const framework = fns.filter(([, r]) =>
      String(r.Properties.Description ?? '').startsWith('AWS CDK resource provider framework - onEvent'),
    );
    expect(framework).toHaveLength(1);
    expect(framework[0][1].Properties.Timeout as number).toBeGreaterThan(90);
    // The lab functions keep their 10 s.
    for (const [, r] of labFunctions(api)) expect(r.Properties.Timeout).toBe(10);
  });
});

describe('routes and the request validator', () => {
  it("requires the path's govId on GET, PUT, PATCH and the view's POST, and govIdType on the query, validated before any invocation", () => {
    const { api } = synthLab();
    const validators = resources(api, 'AWS::ApiGateway::RequestValidator');
    expect(validators).toHaveLength(1);
    expect(validators[0][1].Properties.ValidateRequestParameters).toBe(true);
    // No body check: with no request model it would check nothing; the handlers validate bodies.
    expect(validators[0][1].Properties.ValidateRequestBody).toBe(false);
    expect(resources(api, 'AWS::ApiGateway::Model')).toEqual([]);
    const byRoute = new Map<string, unknown>();
    for (const [, m] of resources(api, 'AWS::ApiGateway::Method')) {
      expect(m.Properties.RequestValidatorId).toEqual({ Ref: validators[0][0] });
      expect(m.Properties.RequestModels).toBeUndefined();
      const part = resources(api, 'AWS::ApiGateway::Resource').find(
        ([id]) => id === (m.Properties.ResourceId as { Ref: string }).Ref,
      )?.[1].Properties.PathPart;
      byRoute.set(`${m.Properties.HttpMethod} ${part}`, m.Properties.RequestParameters);
    }
    expect(Object.fromEntries(byRoute)).toEqual({
      'POST person': undefined,
      'GET person': { 'method.request.querystring.govIdType': true },
      'GET {govId}': { 'method.request.path.govId': true },
      'PUT {govId}': { 'method.request.path.govId': true },
      'PATCH {govId}': { 'method.request.path.govId': true },
      'POST view': { 'method.request.path.govId': true },
      'GET top10': undefined,
    });
  });
});

describe('compute=managed-instances', () => {
  const MI_FLAGS = {
    compute: 'managed-instances',
    memorySize: '2048',
    keepAlive: 'both',
    managedInstancesMaxConcurrency: '32',
    managedInstancesMemoryGiBPerVCpu: '2',
    managedInstancesTypes: 'm7g.large,c7g.large',
    managedInstancesMaxVCpu: '24',
  } as const;
  const { api, stacks } = synthLab(MI_FLAGS);
  const template = api.toJSON() as { Resources: Record<string, Resource> };
  const [[providerId, provider]] = resources(api, 'AWS::Lambda::CapacityProvider');

  it('one arm64 capacity provider in the private subnets, with the flags’ instance types and vCPU ceiling', () => {
    expect(resources(api, 'AWS::Lambda::CapacityProvider')).toHaveLength(1);
    expect(provider.Properties.InstanceRequirements).toEqual({
      AllowedInstanceTypes: ['c7g.large', 'm7g.large'],
      Architectures: ['arm64'],
    });
    expect(provider.Properties.CapacityProviderScalingConfig).toEqual({ MaxVCpuCount: 24 });
    const vpcConfig = provider.Properties.VpcConfig as {
      SubnetIds: { Ref: string }[];
      SecurityGroupIds: unknown[];
    };
    expect(vpcConfig.SubnetIds).toHaveLength(2);
    for (const { Ref } of vpcConfig.SubnetIds) {
      // Private: the subnet's default route goes to the NAT gateway, not the internet gateway.
      const route = Object.values(template.Resources).find(
        (r) =>
          r.Type === 'AWS::EC2::Route' &&
          JSON.stringify(r.Properties.RouteTableId).includes(Ref.replace(/Subnet[A-F0-9]+$/, '')),
      );
      expect(route?.Properties.NatGatewayId, Ref).toBeDefined();
      expect(route?.Properties.GatewayId, Ref).toBeUndefined();
    }
    expect(vpcConfig.SecurityGroupIds).toHaveLength(1);
  });

  it('the VPC: one NAT gateway, DynamoDB through a gateway endpoint, a security group with no ingress', () => {
    expect(resources(api, 'AWS::EC2::VPC')).toHaveLength(1);
    expect(resources(api, 'AWS::EC2::NatGateway')).toHaveLength(1);
    const endpoints = resources(api, 'AWS::EC2::VPCEndpoint');
    expect(
      endpoints.map(([, r]) => [r.Properties.VpcEndpointType, JSON.stringify(r.Properties.ServiceName)]),
    ).toEqual([['Gateway', expect.stringContaining('.dynamodb')]]);
    const groups = resources(api, 'AWS::EC2::SecurityGroup');
    expect(groups).toHaveLength(1);
    expect(groups[0][1].Properties.SecurityGroupIngress).toBeUndefined();
    expect(resources(api, 'AWS::EC2::SecurityGroupIngress')).toEqual([]);
    // Without DynamoDB targeted there is no endpoint to add.
    const redisOnly = synthLab({ ...MI_FLAGS, targets: 'redis', redisSecretArn: SAMPLE_REDIS_SECRET_ARN });
    expect(resources(redisOnly.api, 'AWS::EC2::VPCEndpoint')).toEqual([]);
  });

  it('the operator role: assumed by Lambda only, with AWS’s documented operator policy and nothing else', () => {
    const roleId = (
      provider.Properties.PermissionsConfig as { CapacityProviderOperatorRoleArn: { 'Fn::GetAtt': string[] } }
    ).CapacityProviderOperatorRoleArn['Fn::GetAtt'][0];
    const role = template.Resources[roleId];
    expect(role.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ],
    });
    expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(
      ':iam::aws:policy/AWSLambdaManagedEC2ResourceOperator',
    );
    expect((role.Properties.ManagedPolicyArns as unknown[]).length).toBe(1);
    expect(role.Properties.Policies).toBeUndefined();
    const attached = resources(api, 'AWS::IAM::Policy').filter(([, p]) =>
      JSON.stringify(p.Properties.Roles).includes(roleId),
    );
    expect(attached).toEqual([]);
  });

  it('every function runs on it with the flags’ concurrency and memory per vCPU, publishing $LATEST.PUBLISHED', () => {
    const fns = labFunctions(api);
    expect(fns).toHaveLength(count(['dynamodb'], BOTH));
    for (const [id, fn] of fns) {
      expect(fn.Properties.CapacityProviderConfig, id).toEqual({
        LambdaManagedInstancesCapacityProviderConfig: {
          CapacityProviderArn: { 'Fn::GetAtt': [providerId, 'Arn'] },
          PerExecutionEnvironmentMaxConcurrency: 32,
          ExecutionEnvironmentMemoryGiBPerVCpu: 2,
        },
      });
      expect(fn.Properties.PublishToLatestPublished, id).toBe(true);
      expect(fn.Properties.MemorySize, id).toBe(2048);
      expect(fn.Properties.Architectures, id).toEqual(['arm64']);
      // The instances are in the VPC; the function itself has no VPC configuration of its own.
      expect(fn.Properties.VpcConfig, id).toBeUndefined();
    }
    // No alias, no provisioned concurrency: the API calls each function, whose unqualified ARN runs $LATEST.PUBLISHED.
    expect(resources(api, 'AWS::Lambda::Alias')).toEqual([]);
    for (const f of stacks.api.functions) expect(f.invoked).toBe(f.function);
  });

  it('blank companion flags leave Lambda its defaults: no per-function settings, no instance filter', () => {
    const plain = synthLab({ compute: 'managed-instances', memorySize: '2048' });
    const [[, p]] = resources(plain.api, 'AWS::Lambda::CapacityProvider');
    expect(p.Properties.InstanceRequirements).toEqual({ Architectures: ['arm64'] });
    expect(p.Properties.CapacityProviderScalingConfig).toBeUndefined();
    for (const [id, fn] of labFunctions(plain.api)) {
      const config = (fn.Properties.CapacityProviderConfig as Record<string, Record<string, unknown>>)
        .LambdaManagedInstancesCapacityProviderConfig;
      expect(Object.keys(config), id).toEqual(['CapacityProviderArn']);
    }
  });

  it('functions of each mode are distinct resources, so a switch replaces them (the config cannot be added or removed)', () => {
    const standard = synthLab({ keepAlive: 'both' });
    const ids = (t: Template) => labFunctions(t).map(([id]) => id);
    expect(ids(api).filter((id) => ids(standard.api).includes(id))).toEqual([]);
    expect(resources(standard.api, 'AWS::Lambda::CapacityProvider')).toEqual([]);
    expect(resources(standard.api, 'AWS::EC2::VPC')).toEqual([]);
    for (const [id, fn] of labFunctions(standard.api))
      expect(fn.Properties.CapacityProviderConfig, id).toBeUndefined();
    // The outputs scripts read keep their names in both modes, and the provider's ARN is one more.
    const outputs = (t: Template) => Object.keys(t.toJSON().Outputs as object);
    expect(outputs(api).filter((o) => !outputs(standard.api).includes(o))).toEqual(['CapacityProviderArn']);
  });
});
