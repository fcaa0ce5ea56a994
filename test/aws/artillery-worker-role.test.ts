/**
 * The IAM of load from many machines (aws/artillery-worker-role.ts): the template checked against
 * what Artillery itself grants and lets be passed (its own files in node_modules/artillery), and
 * its deployment with mocked CloudFormation calls. What it outputs is what --worker-role takes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
  UpdateStackCommand,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import 'aws-sdk-client-mock-vitest/extend';
import {
  apiOfUrl,
  deployWorkerRole,
  FARGATE_WORKER_ROLE_NAME,
  LAMBDA_WORKER_ROLE_NAME,
  workerRoleTemplate,
} from '../../aws/artillery-worker-role';
import { PROJECT_ROOT } from '../../core/paths';
import { artilleryArgs } from '../../loadtest/artillery-runner';

// An obviously fake account: the ARNs only need the right shape.
const ACCOUNT = '111111111111';
const API_URL = 'https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/prod/lab/';
const ARTILLERY = join(PROJECT_ROOT, 'node_modules', 'artillery', 'lib', 'platform');
const artillery = (file: string) => readFileSync(join(ARTILLERY, file), 'utf8');

type Statement = { Action: string[]; Resource: unknown[] };
const statementsOf = (policy: { PolicyDocument: { Statement: Statement[] } }) =>
  policy.PolicyDocument.Statement;
// biome-ignore lint/suspicious/noExplicitAny: a CloudFormation template is untyped JSON
const resources = (platform: 'aws:lambda' | 'aws:fargate') => workerRoleTemplate(platform).Resources as any;

describe('the workers IAM template', () => {
  it("names a Lambda worker role that Artillery's own IAM template lets be passed", () => {
    const driver = artillery('aws/iam-cf-templates/aws-iam-lambda-cf-template.yml');
    // Sid CreateOrGetLambdaRole: iam:PassRole on role/artilleryio-default-lambda-role-*
    const passable =
      /iam:PassRole[\s\S]*?Resource: !Sub "arn:aws:iam::\$\{AWS::AccountId\}:role\/([\w-]+)\*"/.exec(driver);
    expect(passable?.[1]).toBe('artilleryio-default-lambda-role-');
    expect(LAMBDA_WORKER_ROLE_NAME.startsWith(passable?.[1] ?? '-')).toBe(true);
    expect(resources('aws:lambda').WorkerRole.Properties.RoleName).toBe(LAMBDA_WORKER_ROLE_NAME);
  });

  it("grants what Artillery's default Lambda worker role grants, and execute-api:Invoke on the lab API", () => {
    const source = artillery('aws-lambda/index.js');
    const role = resources('aws:lambda').WorkerRole.Properties;
    expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'lambda.amazonaws.com' });
    expect(source).toContain('service-role/AWSLambdaBasicExecutionRole');
    expect(JSON.stringify(role.ManagedPolicyArns)).toContain('service-role/AWSLambdaBasicExecutionRole');
    const [worker, invoke] = role.Policies;
    for (const s of statementsOf(worker)) {
      // Each action list is the one createLambdaRole writes, on the same artilleryio resources.
      expect(source).toContain(`"Action": ${JSON.stringify(s.Action).replace(/,/g, ', ')}`);
      const arns = JSON.stringify(s.Resource);
      expect(arns).toMatch(/artilleryio(-test-data)?\*/);
    }
    expect(statementsOf(invoke)).toEqual([
      {
        Effect: 'Allow',
        Action: ['execute-api:Invoke'],
        Resource: [
          { 'Fn::Sub': `arn:\${AWS::Partition}:execute-api:\${ApiRegion}:\${AWS::AccountId}:\${ApiId}/*` },
        ],
      },
    ]);
  });

  it('adds execute-api:Invoke to the Fargate task role that Artillery creates and lets be passed', () => {
    expect(artillery('aws/constants.js')).toContain(`ECS_WORKER_ROLE_NAME: '${FARGATE_WORKER_ROLE_NAME}'`);
    expect(artillery('aws/iam-cf-templates/aws-iam-fargate-cf-template.yml')).toContain(
      `role/${FARGATE_WORKER_ROLE_NAME}"`,
    );
    const policy = resources('aws:fargate').InvokeLabApi;
    expect(policy.Type).toBe('AWS::IAM::ManagedPolicy');
    expect(policy.Properties.Roles).toEqual([FARGATE_WORKER_ROLE_NAME]);
    expect(statementsOf(policy.Properties).map((s) => s.Action)).toEqual([['execute-api:Invoke']]);
  });

  it('reads the API id and region from its URL', () => {
    expect(apiOfUrl(API_URL)).toEqual({ apiId: 'a1b2c3d4e5', region: 'eu-west-1' });
    expect(() => apiOfUrl('http://127.0.0.1:3100/lab')).toThrow('not an API Gateway URL');
  });
});

describe('deployWorkerRole, with mocked CloudFormation', () => {
  const cfnMock = mockClient(CloudFormationClient);
  // Stubs the client class for this worker process: undone when the file ends.
  afterAll(() => cfnMock.restore());
  const cfn = new CloudFormationClient({ region: 'eu-west-1' });
  const stackName = 'LatencyLab-ArtilleryWorkers';
  const roleArn = `arn:aws:iam::${ACCOUNT}:role/${LAMBDA_WORKER_ROLE_NAME}`;
  const complete = (status: 'CREATE_COMPLETE') => ({
    Stacks: [
      {
        StackName: stackName,
        StackStatus: status,
        CreationTime: new Date(),
        Outputs: [
          { OutputKey: 'RoleArn', OutputValue: roleArn },
          { OutputKey: 'RoleName', OutputValue: LAMBDA_WORKER_ROLE_NAME },
        ],
      },
    ],
  });
  beforeEach(() => cfnMock.reset());

  it('creates the stack with the template, the API as parameters and the named-IAM acknowledgement', async () => {
    cfnMock
      .on(DescribeStacksCommand)
      .rejectsOnce(new Error(`Stack with id ${stackName} does not exist`))
      .resolves(complete('CREATE_COMPLETE'));
    cfnMock.on(CreateStackCommand).resolves({ StackId: 'id' });
    const deployed = await deployWorkerRole({
      cfn,
      platform: 'aws:lambda',
      stackPrefix: 'LatencyLab',
      apiUrl: API_URL,
    });
    expect(cfnMock).toHaveReceivedCommandWith(CreateStackCommand, {
      StackName: stackName,
      Capabilities: ['CAPABILITY_NAMED_IAM'],
      Parameters: [
        { ParameterKey: 'ApiId', ParameterValue: 'a1b2c3d4e5' },
        { ParameterKey: 'ApiRegion', ParameterValue: 'eu-west-1' },
      ],
    });
    const body = cfnMock.commandCalls(CreateStackCommand)[0].args[0].input.TemplateBody ?? '';
    expect(JSON.parse(body)).toEqual(workerRoleTemplate('aws:lambda'));
    expect(cfnMock).not.toHaveReceivedCommand(UpdateStackCommand);
    // What it outputs is what the load's --worker-role passes to run-lambda's --lambda-role-arn.
    expect(deployed).toEqual({ stackName, workerRole: roleArn });
    const args = artilleryArgs({
      operation: 'get',
      labTarget: 'dynamodb',
      target: API_URL,
      basePath: '/dynamodb',
      durationS: 60,
      ratePerS: 100,
      outJson: '/tmp/out/get.json',
      env: {},
      workers: { platform: 'aws:lambda', count: 10, region: 'us-east-1', role: deployed.workerRole },
    });
    expect(args[args.indexOf('--lambda-role-arn') + 1]).toBe(roleArn);
  });

  it('updates a stack that exists, and takes "no updates" as done', async () => {
    cfnMock.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: stackName,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [{ OutputKey: 'RoleName', OutputValue: FARGATE_WORKER_ROLE_NAME }],
        },
      ],
    });
    cfnMock.on(UpdateStackCommand).rejects(new Error('No updates are to be performed.'));
    const deployed = await deployWorkerRole({
      cfn,
      platform: 'aws:fargate',
      stackPrefix: 'LatencyLab',
      apiUrl: API_URL,
    });
    expect(cfnMock).toHaveReceivedCommandTimes(UpdateStackCommand, 1);
    expect(cfnMock).not.toHaveReceivedCommand(CreateStackCommand);
    // run-fargate takes the task role by name.
    expect(deployed.workerRole).toBe(FARGATE_WORKER_ROLE_NAME);
  });
});
