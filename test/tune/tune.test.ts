import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CloudFormationClient,
  DescribeStacksCommand,
  type Output,
  type StackStatus,
} from '@aws-sdk/client-cloudformation';
import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import 'aws-sdk-client-mock-vitest/extend';
import { runTuneCli } from '../../tune/cli';
import { type PowerTuningInput, parsePowerTuningOutput } from '../../tune/power-tuning-result';
import { STEPS, type TuneClients } from '../../tune/tune-runner';

// Obviously fake account and region: only the ARN shapes matter.
const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';
const fnArn = (name: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}`;
const STATE_MACHINE = `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:powerTuningStateMachine-x`;
const EXECUTION = `arn:aws:states:${REGION}:${ACCOUNT}:execution:powerTuningStateMachine-x:run`;
const GET_NAME = 'LatencyLab-Api-DynamodbGet-AAA';
const CREATE_NAME = 'LatencyLab-Api-DynamodbCreate-BBB';

const cfnMock = mockClient(CloudFormationClient);
const lambdaMock = mockClient(LambdaClient);
const sfnMock = mockClient(SFNClient);
// Each stubs its client class for this worker process: undone when the file ends.
afterAll(() => {
  cfnMock.restore();
  lambdaMock.restore();
  sfnMock.restore();
});

function fnOutputs(id: string, name: string): Output[] {
  return [
    { OutputKey: `${id}Name`, OutputValue: name },
    // Provisioned concurrency: the API invokes the `live` alias.
    { OutputKey: `${id}Arn`, OutputValue: `${fnArn(name)}:live` },
    { OutputKey: `${id}LogGroup`, OutputValue: `/aws/lambda/${name}` },
  ];
}

const stack = (name: string, outputs: Output[]) => ({
  Stacks: [
    {
      StackName: name,
      StackId: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${name}/id`,
      StackStatus: 'UPDATE_COMPLETE' as StackStatus,
      CreationTime: new Date(0),
      Outputs: outputs,
    },
  ],
});

const blob = (value: unknown) =>
  new TextEncoder().encode(JSON.stringify(value)) as InvokeCommandOutput['Payload'];

const POWER_TUNING_OUTPUT = {
  power: '256',
  cost: 2.083e-7,
  duration: 9.75,
  stateMachine: {
    executionCost: 0.00045,
    lambdaCost: 0.000123,
    visualization: 'https://lambda-power-tuning.show/#gAAAAQ;AAAA;BBBB',
  },
  stats: [
    { value: 128, averagePrice: 2.5e-7, averageDuration: 22.1, totalCost: 0.000005 },
    { value: 256, averagePrice: 2.083e-7, averageDuration: 9.75, totalCost: 0.000004 },
  ],
};

function capture() {
  const chunks: string[] = [];
  return { write: (s: string) => chunks.push(s), text: () => chunks.join('') };
}

let outDir: string;
let makeClients: ReturnType<typeof vi.fn<() => TuneClients>>;

beforeEach(async () => {
  cfnMock.reset();
  lambdaMock.reset();
  sfnMock.reset();
  outDir = await mkdtemp(join(tmpdir(), 'tune-test-'));
  makeClients = vi.fn(() => ({
    cfn: new CloudFormationClient({ region: REGION }),
    lambda: new LambdaClient({ region: REGION }),
    sfn: new SFNClient({ region: REGION }),
  }));

  cfnMock
    .on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' })
    .resolves(
      stack('LatencyLab-Api', [
        { OutputKey: 'ApiUrl', OutputValue: 'https://api.example.test/lab/' },
        ...fnOutputs('DynamodbCreate', CREATE_NAME),
        ...fnOutputs('DynamodbGet', GET_NAME),
      ]),
    );
  cfnMock
    .on(DescribeStacksCommand, { StackName: 'LatencyLab-PowerTuning' })
    .resolves(
      stack('LatencyLab-PowerTuning', [{ OutputKey: 'StateMachineArn', OutputValue: STATE_MACHINE }]),
    );
  cfnMock
    .on(DescribeStacksCommand, { StackName: 'LatencyLab-Data' })
    .rejects(
      Object.assign(new Error('Stack with id LatencyLab-Data does not exist'), { name: 'ValidationError' }),
    );

  lambdaMock.on(InvokeCommand).resolves({ StatusCode: 200, Payload: blob({ statusCode: 201, body: '{}' }) });
  sfnMock.on(StartExecutionCommand).resolves({ executionArn: EXECUTION, startDate: new Date(0) });
  sfnMock
    .on(DescribeExecutionCommand)
    .resolvesOnce({ executionArn: EXECUTION, status: 'RUNNING' })
    .resolvesOnce({ executionArn: EXECUTION, status: 'RUNNING' })
    .resolves({
      executionArn: EXECUTION,
      status: 'SUCCEEDED',
      startDate: new Date(1000),
      stopDate: new Date(61_000),
      output: JSON.stringify(POWER_TUNING_OUTPUT),
    });
  sfnMock.on(GetExecutionHistoryCommand).resolves({
    events: [
      {
        id: 9,
        timestamp: new Date(0),
        type: 'TaskStateEntered',
        stateEnteredEventDetails: { name: 'Executor' },
      },
    ],
  });
  sfnMock.on(StopExecutionCommand).resolves({ stopDate: new Date(0) });
});

afterEach(async () => {
  await rm(outDir, { recursive: true, force: true });
});

async function tune(
  args: string[],
  extra: { signal?: AbortSignal; sleep?: () => Promise<void>; now?: () => number } = {},
) {
  const out = capture();
  const err = capture();
  const code = await runTuneCli([...args, '--region', REGION, '--out', outDir], {
    out,
    err,
    env: {},
    makeClients,
    pollMs: 1,
    sleep: extra.sleep ?? (async () => {}),
    ...(extra.signal ? { signal: extra.signal } : {}),
    ...(extra.now ? { now: extra.now } : {}),
  });
  return { code, out: out.text(), err: err.text() };
}

function startedInput(): PowerTuningInput {
  const call = sfnMock.commandCalls(StartExecutionCommand)[0];
  return JSON.parse(call.args[0].input.input ?? '{}') as PowerTuningInput;
}

function invokedEvent(): APIGatewayProxyEvent {
  const payload = lambdaMock.commandCalls(InvokeCommand)[0].args[0].input.Payload as Uint8Array;
  return JSON.parse(new TextDecoder().decode(payload)) as APIGatewayProxyEvent;
}

describe('tune: full flow', () => {
  it('seeds a Person, starts Power Tuning with a GET event for it, prints and saves the result', async () => {
    const r = await tune(['--function', 'dynamodb-get', '--power-values', '128,256', '--num', '10']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);

    // The Person is created through the create function the API invokes (its alias).
    expect(lambdaMock).toHaveReceivedCommandTimes(InvokeCommand, 1);
    expect(lambdaMock).toHaveReceivedCommandWith(InvokeCommand, {
      FunctionName: `${fnArn(CREATE_NAME)}:live`,
    });
    const seed = invokedEvent();
    expect(seed.httpMethod).toBe('POST');
    expect(JSON.parse(seed.body ?? '')).toMatchObject({ GovId: 'power-tuning-dynamodb', DOB: '1970-01-01' });

    expect(sfnMock).toHaveReceivedCommandTimes(StartExecutionCommand, 1);
    expect(sfnMock).toHaveReceivedCommandWith(StartExecutionCommand, { stateMachineArn: STATE_MACHINE });
    const input = startedInput();
    expect(input).toMatchObject({
      // Unqualified: Power Tuning adds its own RAM<n> aliases to the function.
      lambdaARN: fnArn(GET_NAME),
      powerValues: [128, 256],
      num: 10,
      strategy: 'cost',
      parallelInvocation: false,
    });
    const payload = input.payload as APIGatewayProxyEvent;
    expect(payload).toMatchObject({
      httpMethod: 'GET',
      path: '/dynamodb/person/power-tuning-dynamodb',
      pathParameters: { govId: 'power-tuning-dynamodb' },
      body: null,
    });

    expect(r.out).toContain('Person power-tuning-dynamodb created (dynamodb-create answered 201)');
    expect(r.out).toMatch(/RUNNING {2}Executor \(invoking the function/);
    expect(r.out).toContain('Best memory for dynamodb-get (strategy cost): 256 MB');
    expect(r.out).toContain('average duration  9.75 ms');
    expect(r.out).toContain('average cost      $0.0000002083 per invocation ($0.2083 per million)');
    expect(r.out).toContain('visualization     https://lambda-power-tuning.show/#gAAAAQ;AAAA;BBBB');
    expect(r.out).toMatch(/256 +9\.75 +\$0\.0000002083 {2}<- chosen/);

    const files = await readdir(outDir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^dynamodb-get-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.json$/);
    const saved = JSON.parse(await readFile(join(outDir, files[0]), 'utf8'));
    expect(saved).toMatchObject({
      function: { key: 'dynamodb-get', name: GET_NAME, functionArn: fnArn(GET_NAME) },
      executionArn: EXECUTION,
      input: { lambdaARN: fnArn(GET_NAME), num: 10 },
      output: POWER_TUNING_OUTPUT,
    });
    expect(r.out).toContain(`Saved ${join(outDir, files[0])}`);
    expect(sfnMock).not.toHaveReceivedCommand(StopExecutionCommand);
  });

  it('describes the version publisher state by its 4.4.0 name, Publisher', async () => {
    sfnMock.on(GetExecutionHistoryCommand).resolves({
      events: [
        {
          id: 3,
          timestamp: new Date(0),
          type: 'TaskStateEntered',
          stateEnteredEventDetails: { name: 'Publisher' },
        },
      ],
    });
    const r = await tune(['--function', 'dynamodb-get', '--power-values', '128,256', '--num', '10']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/RUNNING {2}Publisher \(publishing a version and alias per power value\)/);
  });

  it('names exactly the states of Power Tuning 4.4.0 (statemachine/statemachine.asl.json)', () => {
    // Branching is the Map state that runs Executor per power value; CleanUpOnError its catch.
    expect(Object.keys(STEPS).sort()).toEqual(
      [
        'Initializer',
        'Publisher',
        'IsCountReached',
        'Branching',
        'Executor',
        'Cleaner',
        'Analyzer',
        'Optimizer',
        'CleanUpOnError',
      ].sort(),
    );
  });

  it('accepts the deployed name, the defaults, and a Person that already exists (409)', async () => {
    lambdaMock
      .on(InvokeCommand)
      .resolves({ StatusCode: 200, Payload: blob({ statusCode: 409, body: '{}' }) });
    const r = await tune(['--function', GET_NAME]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('already exists (dynamodb-create answered 409)');
    expect(startedInput()).toMatchObject({
      powerValues: [128, 256, 512, 1024, 1769],
      num: 20,
      strategy: 'cost',
    });
  });

  it('tunes a create function with the seeded Person posted again (every invocation a 409 write path)', async () => {
    const r = await tune(['--function', 'dynamodb-create', '--strategy', 'speed']);
    expect(r.code).toBe(0);
    const input = startedInput();
    expect(input.lambdaARN).toBe(fnArn(CREATE_NAME));
    expect(input.strategy).toBe('speed');
    const payload = input.payload as APIGatewayProxyEvent;
    expect(payload.httpMethod).toBe('POST');
    expect(JSON.parse(payload.body ?? '')).toEqual(JSON.parse(invokedEvent().body ?? ''));
    expect(r.out).toContain('answers 409');
  });

  it('sends a given --payload as is, without seeding', async () => {
    const r = await tune(['--function', 'dynamodb-get', '--payload', '{"pathParameters":{"govId":"x"}}']);
    expect(r.code).toBe(0);
    expect(lambdaMock).not.toHaveReceivedCommand(InvokeCommand);
    expect(startedInput().payload).toEqual({ pathParameters: { govId: 'x' } });
  });
});

describe('tune: validation makes no AWS call', () => {
  it.each([
    [['--function', 'nope'], /unknown function "nope"/],
    [['--function', 'dynamodb-get', '--power-values', '128,64'], /64 MB is outside 128\.\.10240/],
    [['--function', 'dynamodb-get', '--power-values', '128,abc'], /"abc" is not a whole number/],
    [['--function', 'dynamodb-get', '--power-values', '20000'], /outside 128\.\.10240/],
    [['--function', 'dynamodb-get', '--num', '4'], /--num must be a whole number from 5/],
    [
      ['--function', 'dynamodb-get', '--strategy', 'cheap'],
      /--strategy must be one of cost, speed, balanced/,
    ],
    [['--function', 'dynamodb-get', '--payload', '{nope'], /--payload is not JSON/],
    [['--num', '10'], /--function is required/],
    [['--function', 'dynamodb-get', '--unknown'], /Unknown option '--unknown'/],
  ])('%j', async (args, message) => {
    const r = await tune(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(makeClients).not.toHaveBeenCalled();
    expect(cfnMock).not.toHaveReceivedAnyCommand();
    expect(lambdaMock).not.toHaveReceivedAnyCommand();
    expect(sfnMock).not.toHaveReceivedCommand(StartExecutionCommand);
  });

  it('fails with exit 2 when no region can be determined', async () => {
    const err = capture();
    const code = await runTuneCli(['--function', 'dynamodb-get'], {
      out: capture(),
      err,
      env: { AWS_CONFIG_FILE: join(outDir, 'missing-config') },
      makeClients,
    });
    expect(code).toBe(2);
    expect(err.text()).toMatch(/no AWS region/);
    expect(makeClients).not.toHaveBeenCalled();
  });

  it('prints help without AWS', async () => {
    const out = capture();
    const code = await runTuneCli(['--help'], { out, err: capture(), env: {}, makeClients });
    expect(code).toBe(0);
    expect(out.text()).toContain('Usage: npm run tune -- --function NAME');
    expect(makeClients).not.toHaveBeenCalled();
  });

  it('lists the deployed functions when a valid key is not deployed (no execution)', async () => {
    const r = await tune(['--function', 'qldb-get']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /"qldb-get" is not deployed in LatencyLab-Api; deployed: dynamodb-create, dynamodb-get/,
    );
    expect(sfnMock).not.toHaveReceivedCommand(StartExecutionCommand);
  });
});

describe('tune: failures', () => {
  it('reports a FAILED execution with its error and cause', async () => {
    sfnMock.on(DescribeExecutionCommand).resolves({
      executionArn: EXECUTION,
      status: 'FAILED',
      error: 'Lambda.Unknown',
      cause: JSON.stringify({
        errorMessage: 'Invocation error (running in series): Task timed out',
        errorType: 'Error',
      }),
    });
    const r = await tune(['--function', 'dynamodb-get']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'tune: Power Tuning execution FAILED: Lambda.Unknown: Invocation error (running in series): Task timed out\n',
    );
    expect(await readdir(outDir)).toEqual([]);
  });

  it('reports the error Power Tuning caught before its cleanup ended the run', async () => {
    sfnMock
      .on(DescribeExecutionCommand)
      .resolves({ executionArn: EXECUTION, status: 'SUCCEEDED', output: '{}' });
    sfnMock.on(GetExecutionHistoryCommand).resolves({
      events: [
        {
          id: 20,
          timestamp: new Date(0),
          type: 'TaskStateEntered',
          stateEnteredEventDetails: {
            name: 'CleanUpOnError',
            input: JSON.stringify({
              error: {
                Error: 'Error',
                Cause: JSON.stringify({ errorMessage: 'AccessDeniedException: lambda:InvokeFunction' }),
              },
            }),
          },
        },
      ],
    });
    const r = await tune(['--function', 'dynamodb-get']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      'Power Tuning failed and cleaned up: Error: AccessDeniedException: lambda:InvokeFunction',
    );
  });

  it('does not start an execution when the Person cannot be created', async () => {
    lambdaMock.on(InvokeCommand).resolves({
      StatusCode: 200,
      Payload: blob({ statusCode: 503, body: '{"error":"DynamoDB create failed"}' }),
    });
    const r = await tune(['--function', 'dynamodb-get']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('answered 503: DynamoDB create failed');
    expect(sfnMock).not.toHaveReceivedCommand(StartExecutionCommand);
  });

  it('explains a missing Power Tuning stack', async () => {
    cfnMock.on(DescribeStacksCommand, { StackName: 'LatencyLab-PowerTuning' }).rejects(
      Object.assign(new Error('Stack with id LatencyLab-PowerTuning does not exist'), {
        name: 'ValidationError',
      }),
    );
    const r = await tune(['--function', 'dynamodb-get']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('stack LatencyLab-PowerTuning is not deployed');
    expect(lambdaMock).not.toHaveReceivedAnyCommand();
  });

  it('says to deploy first when the API stack is missing', async () => {
    cfnMock
      .on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' })
      .rejects(
        Object.assign(new Error('Stack with id LatencyLab-Api does not exist'), { name: 'ValidationError' }),
      );
    const r = await tune(['--function', 'dynamodb-get']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('deploy first: npx cdk deploy --all');
  });

  it('stops the execution on Ctrl-C and leaves no orphan', async () => {
    sfnMock.on(DescribeExecutionCommand).resolves({ executionArn: EXECUTION, status: 'RUNNING' });
    const controller = new AbortController();
    const r = await tune(['--function', 'dynamodb-get'], {
      signal: controller.signal,
      sleep: async () => controller.abort(),
    });
    expect(r.code).toBe(130);
    expect(sfnMock).toHaveReceivedCommandWith(StopExecutionCommand, { executionArn: EXECUTION });
    expect(r.out).toContain(`Stopped execution ${EXECUTION}`);
    expect(r.err).toMatch(/^tune: interrupted after/);
  });

  it('stops the execution at --timeout', async () => {
    sfnMock.on(DescribeExecutionCommand).resolves({ executionArn: EXECUTION, status: 'RUNNING' });
    let t = 0;
    const r = await tune(['--function', 'dynamodb-get', '--timeout', '60'], {
      now: () => t,
      sleep: async () => {
        t += 5000;
      },
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/still RUNNING after 1:00 \(--timeout 60\); stopped it/);
    expect(sfnMock).toHaveReceivedCommandWith(StopExecutionCommand, { executionArn: EXECUTION });
  });
});

describe('parsePowerTuningOutput', () => {
  it('reads the top-level output and the README form under `results`', () => {
    expect(parsePowerTuningOutput(POWER_TUNING_OUTPUT)).toMatchObject({
      power: 256,
      cost: 2.083e-7,
      duration: 9.75,
    });
    expect(parsePowerTuningOutput({ results: POWER_TUNING_OUTPUT })?.power).toBe(256);
    expect(parsePowerTuningOutput({})).toBeUndefined();
    expect(parsePowerTuningOutput(null)).toBeUndefined();
  });
});

describe('tune: a target module', () => {
  // Last in the file: a registration lasts for the process.
  it('knows the functions of a target LAB_TARGET_MODULES names, as every other CLI does', async () => {
    const run = async (env: NodeJS.ProcessEnv) => {
      const err = capture();
      const code = await runTuneCli(
        ['--target', 'local', '--function', 'throwaway-get', '--balanced-weight', '2'],
        {
          out: capture(),
          err,
          env,
          makeClients,
        },
      );
      return { code, err: err.text() };
    };
    expect(await run({})).toMatchObject({
      code: 2,
      err: expect.stringMatching(/unknown function "throwaway-get": --target local takes a function key/),
    });
    // Registered, the key is known and the next check speaks.
    expect(await run({ LAB_TARGET_MODULES: 'test/targets/throwaway/index.ts' })).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--balanced-weight must be a number from 0 to 1/),
    });
    expect(makeClients).not.toHaveBeenCalled();
  });
});
