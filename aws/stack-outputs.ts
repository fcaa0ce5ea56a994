/**
 * Reads what the CDK app deployed from the stacks' outputs, so commands never need a
 * function name, ARN or log group typed in:
 *   <prefix>-Api          ApiUrl, and per lab function <Id>Name, <Id>Arn, <Id>LogGroup
 *   <prefix>-PowerTuning  StateMachineArn (optional stack)
 *   <prefix>-Data         TableName (optional here)
 */
import {
  type CloudFormationClient,
  DescribeStacksCommand,
  type Output,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import { LabError } from '../core/errors';
import { DEFAULT_STACK_PREFIX } from './aws-options';

export interface LabFunctionOutputs {
  /** e.g. `dynamodb-get-keepalive-off`. */
  readonly key: string;
  /** PascalCase output prefix, e.g. `DynamodbGetKeepaliveOff`. */
  readonly id: string;
  /** Deployed function name. */
  readonly name: string;
  /** What the API invokes: the function ARN, or its `live` alias ARN with provisioned concurrency. */
  readonly invokedArn: string;
  /** The unqualified function ARN (invokedArn without its alias). */
  readonly functionArn: string;
  readonly logGroup: string;
}

export interface LabOutputs {
  readonly apiUrl: string;
  /** Region of the API stack, from its stack id. */
  readonly region?: string;
  readonly functions: LabFunctionOutputs[];
  readonly stateMachineArn?: string;
  readonly tableName?: string;
}

export class StackOutputsError extends LabError {
  constructor(message: string) {
    super(message, 'StackOutputsError');
  }
}

export const DEPLOY_HINT = 'deploy first: npx cdk deploy --all';

export function labStackNames(prefix: string = DEFAULT_STACK_PREFIX) {
  return { api: `${prefix}-Api`, powerTuning: `${prefix}-PowerTuning`, data: `${prefix}-Data` } as const;
}

/** `DynamodbGetKeepaliveOff` -> `dynamodb-get-keepalive-off` (the inverse of lib/routes.ts `pascal`). */
export function keyFromId(id: string): string {
  return id.replace(/(?<!^)([A-Z])/g, '-$1').toLowerCase();
}

/** Drops an alias or version qualifier: `...:function:name:live` -> `...:function:name`. */
export function unqualifiedFunctionArn(arn: string): string {
  const parts = arn.split(':');
  return parts.length > 7 && parts[5] === 'function' ? parts.slice(0, 7).join(':') : arn;
}

/** The region field of an ARN (`arn:partition:service:region:...`). */
export function regionOfArn(arn: string | undefined): string | undefined {
  const region = arn?.split(':')[3];
  return region ? region : undefined;
}

function isMissingStack(e: unknown): boolean {
  return e instanceof Error && /does not exist/i.test(e.message);
}

async function describe(cfn: CloudFormationClient, stackName: string): Promise<Stack | undefined> {
  try {
    const out = await cfn.send(new DescribeStacksCommand({ StackName: stackName }));
    return out.Stacks?.[0];
  } catch (e) {
    if (isMissingStack(e)) return undefined;
    throw e;
  }
}

// A stack that failed to create or is being deleted is as good as absent.
const UNUSABLE =
  /^(CREATE_FAILED|ROLLBACK_COMPLETE|ROLLBACK_FAILED|ROLLBACK_IN_PROGRESS|DELETE_.*|REVIEW_IN_PROGRESS)$/;

function outputsOf(stack: Stack | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (!stack || UNUSABLE.test(stack.StackStatus ?? '')) return map;
  for (const o of stack.Outputs ?? ([] as Output[])) {
    if (o.OutputKey && o.OutputValue !== undefined) map.set(o.OutputKey, o.OutputValue);
  }
  return map;
}

const SUFFIXES = ['Name', 'Arn', 'LogGroup'] as const;

function labFunctionsFrom(outputs: Map<string, string>, stackName: string): LabFunctionOutputs[] {
  // A function is any PascalCase id with a Name or LogGroup output; Arn alone is too generic.
  const ids = new Set<string>();
  for (const key of outputs.keys()) {
    const m = /^([A-Z][A-Za-z0-9]*?)(Name|LogGroup)$/.exec(key);
    if (m) ids.add(m[1]);
  }
  const functions: LabFunctionOutputs[] = [];
  for (const id of [...ids].sort()) {
    const missing = SUFFIXES.filter((s) => !outputs.has(`${id}${s}`)).map((s) => `${id}${s}`);
    if (missing.length > 0) {
      throw new StackOutputsError(
        `stack ${stackName} lacks output ${missing.join(', ')}: it was deployed by an older version of this app; ${DEPLOY_HINT}`,
      );
    }
    const invokedArn = outputs.get(`${id}Arn`) as string;
    functions.push({
      key: keyFromId(id),
      id,
      name: outputs.get(`${id}Name`) as string,
      invokedArn,
      functionArn: unqualifiedFunctionArn(invokedArn),
      logGroup: outputs.get(`${id}LogGroup`) as string,
    });
  }
  return functions;
}

/**
 * Reads the three stacks (in parallel). The API stack must exist with every output;
 * the Power Tuning and Data stacks are optional and their fields then undefined.
 */
export async function readLabOutputs(
  cfn: CloudFormationClient,
  prefix: string = DEFAULT_STACK_PREFIX,
): Promise<LabOutputs> {
  const names = labStackNames(prefix);
  const [api, powerTuning, data] = await Promise.all([
    describe(cfn, names.api),
    describe(cfn, names.powerTuning),
    describe(cfn, names.data),
  ]);
  const region = regionOfArn(api?.StackId);
  const where = region ? ` in ${region}` : '';
  if (!api) {
    throw new StackOutputsError(
      `stack ${names.api} does not exist in this account and region; ${DEPLOY_HINT}`,
    );
  }
  if (UNUSABLE.test(api.StackStatus ?? '')) {
    throw new StackOutputsError(`stack ${names.api}${where} is ${api.StackStatus}; ${DEPLOY_HINT}`);
  }
  const outputs = outputsOf(api);
  const apiUrl = outputs.get('ApiUrl');
  if (apiUrl === undefined) {
    throw new StackOutputsError(
      `stack ${names.api}${where} (${api.StackStatus}) has no output ApiUrl; ${DEPLOY_HINT}`,
    );
  }
  const functions = labFunctionsFrom(outputs, names.api);
  if (functions.length === 0) {
    throw new StackOutputsError(`stack ${names.api}${where} outputs no lab function; ${DEPLOY_HINT}`);
  }
  const stateMachineArn = outputsOf(powerTuning).get('StateMachineArn');
  const tableName = outputsOf(data).get('TableName');
  return {
    apiUrl,
    ...(region ? { region } : {}),
    functions,
    ...(stateMachineArn ? { stateMachineArn } : {}),
    ...(tableName ? { tableName } : {}),
  };
}
