/**
 * --target aws: the deployed functions' configuration against what a step needs, read with
 * GetFunctionConfiguration and GetProvisionedConcurrencyConfig, and the table's indexes with
 * DescribeTable (control-plane calls, mocked).
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  GetFunctionConfigurationCommand,
  GetProvisionedConcurrencyConfigCommand,
  LambdaClient,
  ProvisionedConcurrencyConfigNotFoundException,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { deployCommand, deployedMismatches, deployedStepMismatches } from '../../aws/deployed-settings';
import { keyFromId, type LabFunctionOutputs, type LabOutputs } from '../../aws/stack-outputs';
import { TARGETS } from '../../core/lab-functions';
import { newsTop10 } from '../../experiments/definitions/news-top10';
import { runExperiment } from '../../experiments/run-experiment';

const lambda = mockClient(LambdaClient);
// Stubs the client class for this worker process: undone when the file ends.
afterAll(() => lambda.restore());
const ARN = 'arn:aws:lambda:us-east-1:123456789012:function:lab-get';
const withAlias: LabFunctionOutputs = {
  key: 'dynamodb-get',
  id: 'DynamodbGet',
  name: 'lab-get',
  invokedArn: `${ARN}:live`,
  functionArn: ARN,
  logGroup: '/aws/lambda/lab-get',
};
const noAlias: LabFunctionOutputs = { ...withAlias, invokedArn: ARN };

beforeEach(() => lambda.reset());

describe('deployedMismatches', () => {
  it('finds nothing when memory, prewarming and provisioned concurrency match', async () => {
    lambda.on(GetFunctionConfigurationCommand).resolves({
      MemorySize: 256,
      Environment: { Variables: { PREWARM_CONNECTION: 'on' } },
    });
    lambda
      .on(GetProvisionedConcurrencyConfigCommand)
      .resolves({ RequestedProvisionedConcurrentExecutions: 1 });
    const out = await deployedMismatches(new LambdaClient({}), [withAlias], {
      memoryMb: 256,
      provisionedConcurrency: 1,
      prewarmConnection: true,
    });
    expect(out).toEqual([]);
    expect(lambda.commandCalls(GetProvisionedConcurrencyConfigCommand)[0].args[0].input).toEqual({
      FunctionName: 'lab-get',
      Qualifier: 'live',
    });
  });

  it('names every setting that differs, and no alias or no config as provisioned concurrency 0', async () => {
    lambda.on(GetFunctionConfigurationCommand).resolves({ MemorySize: 512, Environment: { Variables: {} } });
    lambda.on(GetProvisionedConcurrencyConfigCommand).rejects(
      new ProvisionedConcurrencyConfigNotFoundException({
        message: 'No Provisioned Concurrency Config found',
        $metadata: {},
      }),
    );
    const want = { memoryMb: 256, provisionedConcurrency: 1, prewarmConnection: true };
    const out = await deployedMismatches(new LambdaClient({}), [withAlias, noAlias], want);
    expect(out).toEqual([
      'dynamodb-get: memory 512 MB, the step needs 256 MB',
      'dynamodb-get: prewarmConnection false, the step needs true',
      'dynamodb-get: provisioned concurrency 0, the step needs 1',
      'dynamodb-get: memory 512 MB, the step needs 256 MB',
      'dynamodb-get: prewarmConnection false, the step needs true',
      'dynamodb-get: provisioned concurrency 0, the step needs 1',
    ]);
    expect(deployCommand(want, ['dynamodb'])).toBe(
      'npx cdk deploy --all -c targets=dynamodb -c memorySize=256 -c provisionedConcurrency=1 -c prewarmConnection=true',
    );
  });
});

/**
 * news-top10 with --target aws: every function its steps call (create, view, top10 on Redis,
 * DynamoDB, DSQL, keep-alive on) at 1,024 MB, and the TopStories index its DynamoDB top 10
 * queries, read from the deployed stack (CloudFormation DescribeStacks, Lambda
 * GetFunctionConfiguration, DynamoDB DescribeTable, all mocked). A stack that matches lets the
 * run proceed; one that differs prints what to deploy and measures nothing.
 */
describe('news-top10 against the deployed stack', () => {
  const cfn = mockClient(CloudFormationClient);
  const dynamodb = mockClient(DynamoDBClient);
  afterAll(() => {
    cfn.restore();
    dynamodb.restore();
  });
  const ctx = { quick: false, where: 'aws' as const, targets: TARGETS };
  const plan = newsTop10.plan(ctx);
  const REGION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function';
  const ops = ['create', 'view', 'top10'] as const;
  const ids = ['Redis', 'Dynamodb', 'Dsql'].flatMap((t) =>
    ops.map((op) => `${t}${op[0].toUpperCase()}${op.slice(1)}`),
  );
  const outputs: LabOutputs = {
    apiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/lab/',
    region: 'eu-west-1',
    tableName: 'LabData-PersonTable',
    functions: ids.map((id) => ({
      key: keyFromId(id),
      id,
      name: `lab-${id}`,
      invokedArn: `${REGION_ARN}:lab-${id}`,
      functionArn: `${REGION_ARN}:lab-${id}`,
      logGroup: `/aws/lambda/lab-${id}`,
    })),
  };
  const needs = plan.map((s) => ({
    name: s.name,
    targets: s.targets,
    variants: s.variants,
    operations: s.operations,
    settings: { memoryMb: s.memoryMb },
  }));
  /** Each function's configuration as deployed: memory, KEEP_ALIVE and the table it reads. */
  const deployed = (memory: (arn: string) => number, keepAlive: (arn: string) => string) =>
    lambda.on(GetFunctionConfigurationCommand).callsFake((input: { FunctionName: string }) => ({
      MemorySize: memory(input.FunctionName),
      Environment: {
        Variables: { KEEP_ALIVE: keepAlive(input.FunctionName), TABLE_NAME: 'lab-person-table' },
      },
    }));
  const table = (indexes: { IndexName: string; IndexStatus: 'ACTIVE' | 'CREATING' }[]) =>
    dynamodb
      .on(DescribeTableCommand)
      .resolves({ Table: { TableName: 'lab-person-table', GlobalSecondaryIndexes: indexes } });

  beforeEach(() => {
    cfn.reset();
    dynamodb.reset();
  });

  it('proceeds when every function runs at 1,024 MB with keep-alive on and TopStories is ACTIVE', async () => {
    expect(plan[0]).toMatchObject({
      memoryMb: 1024,
      variants: ['on'],
      // No seeding reaches a deployed table: its phases write and count the stories.
      operations: ['create', 'view', 'top10'],
    });
    deployed(
      () => 1024,
      () => 'on',
    );
    table([{ IndexName: 'TopStories', IndexStatus: 'ACTIVE' }]);
    const lines = await deployedStepMismatches(
      { lambda: new LambdaClient({}), clientConfig: {} },
      outputs,
      needs,
    );
    expect(lines).toEqual([]);
    // Nine functions read once each; the table described once a step (news-site, keep-warm),
    // for the top 10's index.
    expect(lambda.commandCalls(GetFunctionConfigurationCommand)).toHaveLength(9);
    expect(dynamodb.commandCalls(DescribeTableCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: 'lab-person-table' },
      { TableName: 'lab-person-table' },
    ]);
  });

  it('differs (memory, keep-alive, a missing index): prints the deploy command, exits 2 and measures nothing', async () => {
    // The Power Tuning and Data stacks are not deployed; the API stack is.
    cfn.on(DescribeStacksCommand).rejects(new Error('Stack with id LatencyLab-Data does not exist'));
    cfn.on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' }).resolves({
      Stacks: [
        {
          StackName: 'LatencyLab-Api',
          StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/LatencyLab-Api/1',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(0),
          Outputs: [
            { OutputKey: 'ApiUrl', OutputValue: outputs.apiUrl },
            ...outputs.functions.flatMap((f) => [
              { OutputKey: `${f.id}Name`, OutputValue: f.name },
              { OutputKey: `${f.id}Arn`, OutputValue: f.invokedArn },
              { OutputKey: `${f.id}LogGroup`, OutputValue: f.logGroup },
            ]),
          ],
        },
      ],
    });
    // Deployed at the template's 512 MB, the Redis top 10 with keep-alive off, and no TopStories yet.
    deployed(
      () => 512,
      (arn) => (arn.endsWith('lab-RedisTop10') ? 'off' : 'on'),
    );
    table([{ IndexName: 'ByGovIdTypeCreatedAt', IndexStatus: 'ACTIVE' }]);
    const out = mkdtempSync(join(tmpdir(), 'lab-news-aws-'));
    const errors: string[] = [];
    try {
      const r = await runExperiment({
        definition: newsTop10,
        outDir: out,
        where: 'aws',
        aws: { region: 'eu-west-1' },
        log: () => {},
        logError: (line) => errors.push(line),
      });
      expect(r).toMatchObject({ exitCode: 2, block: null, interrupted: false });
      expect(errors).toContain('step news-site: the deployed stack differs from what it needs:');
      expect(errors).toContain('  redis-top10, keep-alive on: no such function is deployed');
      expect(errors).toContain('  dynamodb-top10: memory 512 MB, the step needs 1024 MB');
      expect(errors).toContain('  table lab-person-table: no index TopStories, which top10 queries');
      expect(errors).toContain(
        '  deploy: npx cdk deploy --all -c targets=redis,dynamodb,dsql -c keepAlive=on -c memorySize=1024',
      );
      expect(errors.at(-1)).toMatch(/^Nothing was measured: deploy what the steps need and run again/);
      // Nothing measured: no step folder, no report.
      expect(readdirSync(out)).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
