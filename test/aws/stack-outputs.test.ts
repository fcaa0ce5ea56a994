import {
  CloudFormationClient,
  DescribeStacksCommand,
  type Output,
  type StackStatus,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import 'aws-sdk-client-mock-vitest/extend';
import {
  keyFromId,
  readLabOutputs,
  StackOutputsError,
  unqualifiedFunctionArn,
} from '../../aws/stack-outputs';

// An obviously fake account: the ARNs only need the right shape.
const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';
const fnArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
const stackId = (name: string) => `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${name}/abc`;

const cfnMock = mockClient(CloudFormationClient);
// Stubs the client class for this worker process: undone when the file ends.
afterAll(() => cfnMock.restore());
const cfn = new CloudFormationClient({ region: REGION });

function functionOutputs(id: string, name: string, invokedArn = fnArn(name)): Output[] {
  return [
    { OutputKey: `${id}Name`, OutputValue: name },
    { OutputKey: `${id}Arn`, OutputValue: invokedArn },
    { OutputKey: `${id}LogGroup`, OutputValue: `/aws/lambda/${name}` },
  ];
}

function stack(name: string, outputs: Output[], status: StackStatus = 'CREATE_COMPLETE') {
  return {
    Stacks: [
      {
        StackName: name,
        StackId: stackId(name),
        StackStatus: status,
        CreationTime: new Date(0),
        Outputs: outputs,
      },
    ],
  };
}

const missing = (name: string) =>
  Object.assign(new Error(`Stack with id ${name} does not exist`), { name: 'ValidationError' });

const API_OUTPUTS: Output[] = [
  { OutputKey: 'ApiUrl', OutputValue: 'https://api.example.test/lab/' },
  { OutputKey: 'ApiEndpoint4F160690', OutputValue: 'https://api.example.test/lab/' },
  ...functionOutputs('DynamodbCreate', 'LatencyLab-Api-DynamodbCreate-AAA'),
  ...functionOutputs(
    'DynamodbGetKeepaliveOff',
    'LatencyLab-Api-DynamodbGetKeepaliveOff-BBB',
    `${fnArn('LatencyLab-Api-DynamodbGetKeepaliveOff-BBB')}:live`,
  ),
];

describe('readLabOutputs', () => {
  beforeEach(() => {
    cfnMock.reset();
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' })
      .resolves(stack('LatencyLab-Api', API_OUTPUTS));
    cfnMock.on(DescribeStacksCommand, { StackName: 'LatencyLab-PowerTuning' }).resolves(
      stack('LatencyLab-PowerTuning', [
        {
          OutputKey: 'StateMachineArn',
          OutputValue: `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:pt`,
        },
      ]),
    );
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'LatencyLab-Data' })
      .resolves(
        stack('LatencyLab-Data', [{ OutputKey: 'TableName', OutputValue: 'LatencyLab-Data-People' }]),
      );
  });

  it('reads the API, Power Tuning and Data outputs and names functions by key', async () => {
    const out = await readLabOutputs(cfn, 'LatencyLab');
    expect(out.apiUrl).toBe('https://api.example.test/lab/');
    expect(out.region).toBe(REGION);
    expect(out.stateMachineArn).toContain(':stateMachine:pt');
    expect(out.tableName).toBe('LatencyLab-Data-People');
    expect(out.functions).toEqual([
      {
        key: 'dynamodb-create',
        id: 'DynamodbCreate',
        name: 'LatencyLab-Api-DynamodbCreate-AAA',
        invokedArn: fnArn('LatencyLab-Api-DynamodbCreate-AAA'),
        functionArn: fnArn('LatencyLab-Api-DynamodbCreate-AAA'),
        logGroup: '/aws/lambda/LatencyLab-Api-DynamodbCreate-AAA',
      },
      {
        key: 'dynamodb-get-keepalive-off',
        id: 'DynamodbGetKeepaliveOff',
        name: 'LatencyLab-Api-DynamodbGetKeepaliveOff-BBB',
        invokedArn: `${fnArn('LatencyLab-Api-DynamodbGetKeepaliveOff-BBB')}:live`,
        functionArn: fnArn('LatencyLab-Api-DynamodbGetKeepaliveOff-BBB'),
        logGroup: '/aws/lambda/LatencyLab-Api-DynamodbGetKeepaliveOff-BBB',
      },
    ]);
    expect(cfnMock).toHaveReceivedCommandTimes(DescribeStacksCommand, 3);
  });

  it('uses the stack prefix for every stack name', async () => {
    cfnMock.on(DescribeStacksCommand).rejects(missing('x'));
    cfnMock.on(DescribeStacksCommand, { StackName: 'Other-Api' }).resolves(stack('Other-Api', API_OUTPUTS));
    const out = await readLabOutputs(cfn, 'Other');
    expect(out.functions).toHaveLength(2);
    expect(out.stateMachineArn).toBeUndefined();
    expect(out.tableName).toBeUndefined();
    expect(cfnMock).toHaveReceivedCommandWith(DescribeStacksCommand, { StackName: 'Other-PowerTuning' });
  });

  it('says to deploy first when the API stack does not exist', async () => {
    cfnMock.on(DescribeStacksCommand).rejects(missing('LatencyLab-Api'));
    const error = await readLabOutputs(cfn).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackOutputsError);
    expect((error as Error).message).toMatch(
      /LatencyLab-Api does not exist.*deploy first: npx cdk deploy --all/,
    );
  });

  it('treats a rolled-back API stack as not deployed', async () => {
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' })
      .resolves(stack('LatencyLab-Api', [], 'ROLLBACK_COMPLETE'));
    await expect(readLabOutputs(cfn)).rejects.toThrow(/is ROLLBACK_COMPLETE; deploy first/);
  });

  it('names a missing output', async () => {
    const withoutLogGroup = API_OUTPUTS.filter((o) => o.OutputKey !== 'DynamodbCreateLogGroup');
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' })
      .resolves(stack('LatencyLab-Api', withoutLogGroup));
    await expect(readLabOutputs(cfn)).rejects.toThrow(
      /lacks output DynamodbCreateLogGroup.*npx cdk deploy --all/,
    );
  });

  it('requires ApiUrl', async () => {
    const withoutUrl = API_OUTPUTS.filter((o) => o.OutputKey !== 'ApiUrl');
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' })
      .resolves(stack('LatencyLab-Api', withoutUrl));
    await expect(readLabOutputs(cfn)).rejects.toThrow(/has no output ApiUrl/);
  });

  it('passes other errors (credentials, throttling) through unchanged', async () => {
    cfnMock
      .on(DescribeStacksCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    await expect(readLabOutputs(cfn)).rejects.toThrow('Rate exceeded');
  });
});

describe('names and ARNs', () => {
  it.each([
    ['DynamodbCreate', 'dynamodb-create'],
    ['DynamodbGetKeepaliveOff', 'dynamodb-get-keepalive-off'],
    ['QldbGet', 'qldb-get'],
  ])('%s -> %s', (id, key) => expect(keyFromId(id)).toBe(key));

  it('drops an alias or version qualifier and keeps an unqualified ARN', () => {
    expect(unqualifiedFunctionArn(`${fnArn('f')}:live`)).toBe(fnArn('f'));
    expect(unqualifiedFunctionArn(`${fnArn('f')}:7`)).toBe(fnArn('f'));
    expect(unqualifiedFunctionArn(fnArn('f'))).toBe(fnArn('f'));
  });
});
