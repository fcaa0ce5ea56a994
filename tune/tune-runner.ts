/**
 * The AWS side of `npm run tune`: one AWS Lambda Power Tuning (4.x) execution on one lab
 * function, followed to its end and saved. Clients, output stream, clock and abort signal
 * are injected so the whole flow runs against mocks; tune/cli.ts loads this module only
 * once the arguments are valid, so `--help` and a typo load no AWS SDK.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { type AwsOptions, sdkClientConfig, UsageError } from '../aws/aws-options';
import {
  type LabFunctionOutputs,
  type LabOutputs,
  labStackNames,
  readLabOutputs,
} from '../aws/stack-outputs';
import { InterruptedError, LabError } from '../core/errors';
import { PayloadError, proxyEvent, seedPerson, tuningPerson } from './default-payload';
import {
  type PowerTuningInput,
  type PowerTuningOutput,
  parsePowerTuningOutput,
  resultFileName,
  type TuneResultFile,
} from './power-tuning-result';
import { printResult } from './print-result';
import { possibleLabFunctions, type TuneOptions } from './tune-args';

export type { PowerTuningInput, PowerTuningOutput, PowerTuningStat } from './power-tuning-result';
export { resultFileName } from './power-tuning-result';

export interface TuneClients {
  readonly cfn: CloudFormationClient;
  readonly lambda: LambdaClient;
  readonly sfn: SFNClient;
}

export interface OutputStream {
  write(chunk: string): unknown;
}

export interface TuneDeps extends TuneClients {
  readonly out: OutputStream;
  /** Aborted by Ctrl-C: polling ends and the execution is stopped. */
  readonly signal?: AbortSignal;
  /** @default 3000 */
  readonly pollMs?: number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface TuneResult {
  readonly function: LabFunctionOutputs;
  readonly executionArn: string;
  readonly input: PowerTuningInput;
  /** The state machine output as returned, unchanged. */
  readonly rawOutput: unknown;
  readonly output: PowerTuningOutput;
  readonly file: string;
}

/** The run did not produce a result: the message says why. */
export class TuneError extends LabError {
  constructor(message: string) {
    super(message, 'TuneError');
  }
}

export class TuneInterruptedError extends InterruptedError {}

const DEFAULT_POLL_MS = 3000;
const HEARTBEAT_MS = 30_000;
const MAX_POLL_FAILURES = 5;
const SEED_TIMEOUT_MS = 60_000;

/**
 * What each state of Power Tuning 4.4.0's state machine (statemachine/statemachine.asl.json)
 * does, for the progress line. The version publisher state is `Publisher`: it was named
 * `versionPublisher` only in unreleased commits of May 2024.
 */
export const STEPS: Readonly<Record<string, string>> = {
  Initializer: 'reading the function configuration',
  Publisher: 'publishing a version and alias per power value',
  IsCountReached: 'publishing a version and alias per power value',
  Branching: 'invoking the function at every power value',
  Executor: 'invoking the function at every power value',
  Cleaner: 'deleting the temporary versions and aliases',
  Analyzer: 'computing cost and duration',
  Optimizer: 'finishing',
  CleanUpOnError: 'cleaning up after an error',
};

const sleepFor = async (ms: number, signal?: AbortSignal) => {
  await delay(ms, undefined, signal ? { signal } : undefined);
};

export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** Step Functions execution names: 1..80 of [A-Za-z0-9-_]. */
export function executionName(key: string, nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const rand = Math.random().toString(36).slice(2, 6);
  return `tune-${key}-${stamp}-${rand}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 80);
}

function findFunction(outputs: LabOutputs, name: string, stackPrefix: string): LabFunctionOutputs {
  const fn = outputs.functions.find((f) => f.key === name || f.name === name);
  if (fn) return fn;
  const deployed = outputs.functions.map((f) => f.key).join(', ');
  throw new UsageError(
    `function ${JSON.stringify(name)} is not deployed in ${labStackNames(stackPrefix).api}; deployed: ${deployed}`,
  );
}

async function defaultPayload(
  fn: LabFunctionOutputs,
  outputs: LabOutputs,
  deps: TuneDeps,
  signal: AbortSignal,
): Promise<unknown> {
  const specs = possibleLabFunctions();
  const spec = specs.find((s) => s.key === fn.key);
  if (!spec) throw new TuneError(`no default payload for ${fn.key}: pass --payload`);
  // The create function beside this one (same target and keep-alive variant) writes the Person.
  const createKey = spec.key.replace(new RegExp(`-${spec.operation}(?=-|$)`), '-create');
  const createSpec = specs.find((s) => s.key === createKey);
  const createFn = outputs.functions.find((f) => f.key === createKey);
  if (!createSpec || !createFn) {
    throw new TuneError(
      `${createKey} is not deployed, so the Person ${fn.key} reads cannot be created: pass --payload`,
    );
  }
  const person = tuningPerson(spec.target);
  const status = await seedPerson(deps.lambda, { fn: createFn, spec: createSpec }, person, signal);
  deps.out.write(
    `Person ${person.GovId} ${status === 201 ? 'created' : 'already exists'} (${createKey} answered ${status})\n`,
  );
  if (spec.operation === 'create') {
    deps.out.write(
      'Every tuned invocation posts that same Person: the conditional write runs and answers 409.\n',
    );
  }
  return proxyEvent(spec, person);
}

/** Lambda errors arrive as JSON with errorMessage; anything else is shown as is. */
function readableCause(cause: string | undefined): string {
  if (!cause) return '';
  try {
    const o = JSON.parse(cause) as { errorMessage?: unknown; Cause?: unknown };
    if (typeof o.errorMessage === 'string') return o.errorMessage;
    if (typeof o.Cause === 'string') return readableCause(o.Cause);
  } catch {
    // plain text
  }
  return cause;
}

/** The latest events first; state inputs only when asked (they repeat the payload in every event). */
async function recentEvents(sfn: SFNClient, executionArn: string, withData = false): Promise<HistoryEvent[]> {
  const out = await sfn.send(
    new GetExecutionHistoryCommand({
      executionArn,
      reverseOrder: true,
      maxResults: withData ? 100 : 20,
      includeExecutionData: withData,
    }),
  );
  return out.events ?? [];
}

/** The error Power Tuning caught before its CleanUpOnError state ended the run "successfully". */
async function cleanupError(sfn: SFNClient, executionArn: string): Promise<string | undefined> {
  const events = await recentEvents(sfn, executionArn, true);
  const entered = events.find((e) => e.stateEnteredEventDetails?.name === 'CleanUpOnError');
  const input = entered?.stateEnteredEventDetails?.input;
  if (!input) return undefined;
  try {
    const error = (JSON.parse(input) as { error?: { Error?: string; Cause?: string } }).error;
    if (error) return [error.Error, readableCause(error.Cause)].filter(Boolean).join(': ');
  } catch {
    // input not JSON: nothing more precise to say
  }
  return undefined;
}

function consoleUrl(executionArn: string): string | undefined {
  const [, partition, , region] = executionArn.split(':');
  if (partition !== 'aws' || !region) return undefined;
  return `https://${region}.console.aws.amazon.com/states/home?region=${region}#/v2/executions/details/${executionArn}`;
}

class ExecutionWatcher {
  private lastStep = '';
  private lastPrint = Number.NEGATIVE_INFINITY;
  private historyAllowed = true;

  constructor(
    private readonly sfn: SFNClient,
    private readonly out: OutputStream,
    private readonly executionArn: string,
  ) {}

  /** GetExecutionHistory is optional: without the permission the line shows the status alone. */
  private async step(): Promise<string> {
    if (!this.historyAllowed) return '';
    try {
      const events = await recentEvents(this.sfn, this.executionArn);
      return events.find((e) => e.stateEnteredEventDetails?.name)?.stateEnteredEventDetails?.name ?? '';
    } catch {
      this.historyAllowed = false;
      return '';
    }
  }

  async report(status: string, elapsedMs: number): Promise<void> {
    const step = await this.step();
    if (step === this.lastStep && elapsedMs - this.lastPrint < HEARTBEAT_MS) return;
    this.lastStep = step;
    this.lastPrint = elapsedMs;
    const what = step ? `  ${step}${STEPS[step] ? ` (${STEPS[step]})` : ''}` : '';
    this.out.write(`  [${formatElapsed(elapsedMs).padStart(5)}] ${status}${what}\n`);
  }
}

async function stopExecution(
  sfn: SFNClient,
  out: OutputStream,
  executionArn: string,
  cause: string,
): Promise<void> {
  try {
    await sfn.send(new StopExecutionCommand({ executionArn, error: 'npm-run-tune', cause }));
    out.write(`Stopped execution ${executionArn}\n`);
  } catch (e) {
    out.write(
      `Could not stop ${executionArn} (${(e as Error).message}); stop it with: aws stepfunctions stop-execution --execution-arn ${executionArn}\n`,
    );
  }
  // A stopped execution skips Power Tuning's own cleanup states.
  out.write(
    'Power Tuning did not clean up: the function may keep RAM<n> aliases and published versions, ' +
      'and $LATEST the last tested memory size. Remove leftover aliases with `aws lambda delete-alias`, ' +
      'and restore the memory with `npx cdk deploy --all` (the next tune run also reuses the aliases).\n',
  );
}

export async function runTune(options: TuneOptions, deps: TuneDeps): Promise<TuneResult> {
  const { out, sfn } = deps;
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? sleepFor;
  const signal = deps.signal ?? new AbortController().signal;
  const pollMs = deps.pollMs ?? DEFAULT_POLL_MS;
  const stacks = labStackNames(options.aws.stackPrefix);

  const outputs = await readLabOutputs(deps.cfn, options.aws.stackPrefix);
  const fn = findFunction(outputs, options.function, options.aws.stackPrefix);
  if (!outputs.stateMachineArn) {
    throw new TuneError(
      `stack ${stacks.powerTuning} is not deployed: deploy it with npx cdk deploy --all -c powerTuning=true`,
    );
  }
  out.write(`Tuning ${fn.key} (${fn.name})\n`);

  let payload: unknown;
  if (options.payload !== undefined) payload = options.payload;
  else {
    try {
      payload = await defaultPayload(
        fn,
        outputs,
        deps,
        AbortSignal.any([signal, AbortSignal.timeout(SEED_TIMEOUT_MS)]),
      );
    } catch (e) {
      if (signal.aborted) throw new TuneInterruptedError('interrupted before the execution started');
      if (e instanceof PayloadError) throw new TuneError(e.message);
      throw e;
    }
  }
  if (signal.aborted) throw new TuneInterruptedError('interrupted before the execution started');

  // Power Tuning publishes versions and RAM<n> aliases on the function itself: it needs the
  // unqualified ARN even when the API invokes the `live` alias.
  const input: PowerTuningInput = {
    lambdaARN: fn.functionArn,
    powerValues: options.powerValues,
    num: options.num,
    payload,
    strategy: options.strategy,
    parallelInvocation: false,
    includeOutputResults: true,
  };
  const started = now();
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({
      stateMachineArn: outputs.stateMachineArn,
      name: executionName(fn.key, started),
      input: JSON.stringify(input),
    }),
  );
  if (!executionArn) throw new TuneError('StartExecution returned no executionArn');
  out.write(
    `Started ${executionArn}\n  ${options.powerValues.join(', ')} MB x ${options.num} invocations, strategy ${options.strategy}\n`,
  );
  const url = consoleUrl(executionArn);
  if (url) out.write(`  console: ${url}\n`);

  const watcher = new ExecutionWatcher(sfn, out, executionArn);
  let described: DescribeExecutionCommandOutput | undefined;
  let failures = 0;
  for (;;) {
    if (signal.aborted) {
      await stopExecution(sfn, out, executionArn, 'interrupted by the user (Ctrl-C)');
      throw new TuneInterruptedError(`interrupted after ${formatElapsed(now() - started)}`);
    }
    try {
      described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      failures = 0;
    } catch (e) {
      failures += 1;
      out.write(`  DescribeExecution failed (${(e as Error).message})\n`);
      if (failures >= MAX_POLL_FAILURES) {
        await stopExecution(sfn, out, executionArn, 'npm run tune could not follow the execution');
        throw new TuneError(
          `gave up following ${executionArn} after ${failures} failed DescribeExecution calls`,
        );
      }
    }
    const status = described?.status ?? 'RUNNING';
    const elapsed = now() - started;
    if (status !== 'RUNNING') break;
    await watcher.report(status, elapsed);
    if (elapsed >= options.timeoutMs) {
      await stopExecution(
        sfn,
        out,
        executionArn,
        `npm run tune --timeout ${options.timeoutMs / 1000}s reached`,
      );
      throw new TuneError(
        `execution still RUNNING after ${formatElapsed(elapsed)} (--timeout ${options.timeoutMs / 1000}); stopped it`,
      );
    }
    try {
      await sleep(Math.min(pollMs, options.timeoutMs - elapsed), signal);
    } catch {
      // Aborted while waiting: the next turn stops the execution.
    }
  }

  const status = described?.status ?? 'UNKNOWN';
  out.write(`  [${formatElapsed(now() - started).padStart(5)}] ${status}\n`);
  if (status !== 'SUCCEEDED') {
    const cause = readableCause(described?.cause);
    throw new TuneError(
      `Power Tuning execution ${status}${described?.error ? `: ${described.error}` : ''}${cause ? `: ${cause}` : ''}`,
    );
  }
  let rawOutput: unknown;
  try {
    rawOutput = JSON.parse(described?.output ?? 'null');
  } catch {
    rawOutput = described?.output;
  }
  const output = parsePowerTuningOutput(rawOutput);
  if (!output) {
    // Power Tuning catches its errors, cleans up and ends SUCCEEDED with an empty output.
    const why = await cleanupError(sfn, executionArn).catch(() => undefined);
    throw new TuneError(
      `Power Tuning failed and cleaned up${why ? `: ${why}` : ' (see the CleanUpOnError input in the execution history)'}`,
    );
  }

  printResult(out, fn.key, options.strategy, output);
  await mkdir(options.outDir, { recursive: true });
  const file = join(options.outDir, resultFileName(fn.key, started));
  const saved: TuneResultFile = {
    function: { key: fn.key, name: fn.name, functionArn: fn.functionArn },
    stateMachineArn: outputs.stateMachineArn,
    executionArn,
    startDate: described?.startDate?.toISOString(),
    stopDate: described?.stopDate?.toISOString(),
    input,
    output: rawOutput,
  };
  await writeFile(file, `${JSON.stringify(saved, null, 2)}\n`);
  out.write(
    `Saved ${file}\nNot applied. To deploy it (to every lab function): npx cdk deploy --all -c memorySize=${output.power}\n`,
  );
  return { function: fn, executionArn, input, rawOutput, output, file };
}

export function defaultClients(aws: AwsOptions): TuneClients {
  const config = sdkClientConfig(aws);
  return {
    cfn: new CloudFormationClient(config),
    lambda: new LambdaClient(config),
    sfn: new SFNClient(config),
  };
}
