/**
 * --target aws: the deployed functions' configuration against what a step needs, read with
 * GetFunctionConfiguration and GetProvisionedConcurrencyConfig (control-plane calls, mocked).
 */
import {
  GetFunctionConfigurationCommand,
  GetProvisionedConcurrencyConfigCommand,
  LambdaClient,
  ProvisionedConcurrencyConfigNotFoundException,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { deployCommand, deployedMismatches } from '../../aws/deployed-settings';
import type { LabFunctionOutputs } from '../../aws/stack-outputs';

const lambda = mockClient(LambdaClient);
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
