/**
 * The IAM that Artillery's cloud workers need to load the lab: the lab's API uses IAM
 * authorization, so a worker must hold execute-api:Invoke on it, which the worker roles
 * Artillery creates for itself do not grant. One small opt-in stack, `<prefix>-ArtilleryWorkers`,
 * deployed by `npm run worker-role` (its template is workerRoleTemplate):
 *   aws:lambda   a worker role of the lab's own: what Artillery's default Lambda worker role grants
 *                (node_modules/artillery/lib/platform/aws-lambda/index.js createLambdaRole: logs,
 *                its SQS queues and S3 bucket) plus execute-api:Invoke on the lab's API. Its name
 *                starts with artilleryio-default-lambda-role-, the roles Artillery's own IAM template
 *                for the person who runs the test lets them pass (iam:PassRole); give its ARN to
 *                --worker-role (run-lambda's --lambda-role-arn)
 *   aws:fargate  a managed policy with execute-api:Invoke on the API, attached to the task role
 *                Artillery creates on its first Fargate run (artilleryio-ecs-worker-role, the only
 *                one its IAM template lets be passed)
 * The person running the test needs Artillery's own IAM: deploy its template
 * (node_modules/artillery/lib/platform/aws/iam-cf-templates/aws-iam-<lambda|fargate>-cf-template.yml)
 * once, as docs/deploying.md, "Load from many machines", says.
 */
import {
  type CloudFormationClient,
  CreateStackCommand,
  DescribeStacksCommand,
  UpdateStackCommand,
  waitUntilStackCreateComplete,
  waitUntilStackUpdateComplete,
} from '@aws-sdk/client-cloudformation';
import { LabError } from '../core/errors';

export type WorkerPlatform = 'aws:lambda' | 'aws:fargate';

/** Within the iam:PassRole resource of Artillery's Lambda IAM template (artilleryio-default-lambda-role-*). */
export const LAMBDA_WORKER_ROLE_NAME = 'artilleryio-default-lambda-role-latency-lab';
/** The task role Artillery's Fargate runner creates and its IAM template lets be passed. */
export const FARGATE_WORKER_ROLE_NAME = 'artilleryio-ecs-worker-role';

/** `https://<api-id>.execute-api.<region>.amazonaws.com/<stage>/...` -> its id and region. */
export function apiOfUrl(url: string): { apiId: string; region: string } {
  const m = /^https:\/\/([a-z0-9]{10})\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\//.exec(url);
  if (!m) throw new LabError(`not an API Gateway URL: ${url}`, 'WorkerRoleError');
  return { apiId: m[1], region: m[2] };
}

const sub = (s: string) => ({ 'Fn::Sub': s });
/** `${Name}` of a Fn::Sub string, written so that it reads as no JavaScript template. */
const v = (name: string) => `\${${name}}`;
const INVOKE_API = {
  Effect: 'Allow',
  Action: ['execute-api:Invoke'],
  Resource: [
    sub(`arn:${v('AWS::Partition')}:execute-api:${v('ApiRegion')}:${v('AWS::AccountId')}:${v('ApiId')}/*`),
  ],
};

/** The worker role's CloudFormation template (JSON), for one platform. */
export function workerRoleTemplate(platform: WorkerPlatform): Record<string, unknown> {
  const parameters = {
    ApiId: { Type: 'String', AllowedPattern: '[a-z0-9]{10}', Description: "The lab API's id" },
    ApiRegion: {
      Type: 'String',
      AllowedPattern: '[a-z]{2}(-[a-z]+)+-\\d',
      Description: "The lab API's region",
    },
  };
  if (platform === 'aws:fargate') {
    return {
      AWSTemplateFormatVersion: '2010-09-09',
      Description: "Lets Artillery's Fargate workers call the latency lab's IAM-authorized API",
      Parameters: parameters,
      Resources: {
        InvokeLabApi: {
          Type: 'AWS::IAM::ManagedPolicy',
          Properties: {
            Description: 'execute-api:Invoke on the latency lab API, for Artillery workers',
            Roles: [FARGATE_WORKER_ROLE_NAME],
            PolicyDocument: { Version: '2012-10-17', Statement: [INVOKE_API] },
          },
        },
      },
      Outputs: { RoleName: { Value: FARGATE_WORKER_ROLE_NAME } },
    };
  }
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description:
      "Artillery's Lambda workers for the latency lab: Artillery's worker permissions and the lab API",
    Parameters: parameters,
    Resources: {
      WorkerRole: {
        Type: 'AWS::IAM::Role',
        Properties: {
          // A fixed name: Artillery's IAM template lets only artilleryio-default-lambda-role-* be passed.
          RoleName: LAMBDA_WORKER_ROLE_NAME,
          AssumeRolePolicyDocument: {
            Version: '2012-10-17',
            Statement: [
              { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
            ],
          },
          ManagedPolicyArns: [
            sub(`arn:${v('AWS::Partition')}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole`),
          ],
          Policies: [
            {
              PolicyName: 'ArtilleryWorker',
              PolicyDocument: {
                Version: '2012-10-17',
                Statement: [
                  {
                    Effect: 'Allow',
                    Action: ['sqs:*'],
                    Resource: [sub(`arn:${v('AWS::Partition')}:sqs:*:${v('AWS::AccountId')}:artilleryio*`)],
                  },
                  {
                    Effect: 'Allow',
                    Action: [
                      's3:HeadObject',
                      's3:PutObject',
                      's3:ListBucket',
                      's3:GetObject',
                      's3:GetObjectAttributes',
                    ],
                    Resource: [
                      sub(`arn:${v('AWS::Partition')}:s3:::artilleryio-test-data*`),
                      sub(`arn:${v('AWS::Partition')}:s3:::artilleryio-test-data*/*`),
                    ],
                  },
                ],
              },
            },
            {
              PolicyName: 'InvokeLabApi',
              PolicyDocument: { Version: '2012-10-17', Statement: [INVOKE_API] },
            },
          ],
        },
      },
    },
    Outputs: {
      RoleArn: { Value: { 'Fn::GetAtt': ['WorkerRole', 'Arn'] } },
      RoleName: { Value: { Ref: 'WorkerRole' } },
    },
  };
}

export interface DeployWorkerRoleOptions {
  readonly cfn: CloudFormationClient;
  readonly platform: WorkerPlatform;
  readonly stackPrefix: string;
  /** The lab's API URL (its stack's ApiUrl output). */
  readonly apiUrl: string;
  /** @default 600 s */
  readonly maxWaitS?: number;
}

export interface DeployedWorkerRole {
  readonly stackName: string;
  /** What --worker-role takes: the role ARN (aws:lambda) or name (aws:fargate). */
  readonly workerRole: string;
}

/** Creates or updates the workers' stack and returns what --worker-role takes. */
export async function deployWorkerRole(o: DeployWorkerRoleOptions): Promise<DeployedWorkerRole> {
  const stackName = `${o.stackPrefix}-ArtilleryWorkers`;
  const { apiId, region } = apiOfUrl(o.apiUrl);
  const input = {
    StackName: stackName,
    TemplateBody: JSON.stringify(workerRoleTemplate(o.platform)),
    Parameters: [
      { ParameterKey: 'ApiId', ParameterValue: apiId },
      { ParameterKey: 'ApiRegion', ParameterValue: region },
    ],
    // A named role: CloudFormation asks for the acknowledgement.
    Capabilities: ['CAPABILITY_NAMED_IAM' as const],
  };
  const waiter = { client: o.cfn, maxWaitTime: o.maxWaitS ?? 600 };
  const exists = await o.cfn
    .send(new DescribeStacksCommand({ StackName: stackName }))
    .then((r) => (r.Stacks ?? []).length > 0)
    .catch((e: Error) => {
      if (/does not exist/.test(e.message)) return false;
      throw e;
    });
  if (exists) {
    try {
      await o.cfn.send(new UpdateStackCommand(input));
      await waitUntilStackUpdateComplete(waiter, { StackName: stackName });
    } catch (e) {
      if (!/No updates are to be performed/.test((e as Error).message)) throw e;
    }
  } else {
    await o.cfn.send(new CreateStackCommand(input));
    await waitUntilStackCreateComplete(waiter, { StackName: stackName });
  }
  const described = await o.cfn.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = described.Stacks?.[0]?.Outputs ?? [];
  const key = o.platform === 'aws:lambda' ? 'RoleArn' : 'RoleName';
  const workerRole = outputs.find((x) => x.OutputKey === key)?.OutputValue;
  if (!workerRole) throw new LabError(`stack ${stackName} has no output ${key}`, 'WorkerRoleError');
  return { stackName, workerRole };
}
