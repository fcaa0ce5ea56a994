/**
 * Context flags -> typed AppConfig. The only place flag strings are interpreted.
 * Values arrive as strings from `-c key=value` and as JSON types from cdk.json, so
 * every parser accepts both.
 */
import {
  type KeepAliveVariant,
  labFunctions,
  OPERATIONS,
  type Operation,
  TARGETS,
  type Target,
} from '../core/lab-functions';
import { registeredContextKeys } from './targets/context-keys';

export { type KeepAliveVariant, TARGETS, type Target } from '../core/lab-functions';

export const KEEP_ALIVE_FLAGS = ['on', 'off', 'both'] as const;
export type KeepAliveFlag = (typeof KEEP_ALIVE_FLAGS)[number];

export const REMOVAL_POLICIES = ['destroy', 'retain'] as const;
export type RemovalPolicyFlag = (typeof REMOVAL_POLICIES)[number];

/** CloudWatch Logs accepts only these retention periods. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

export const MEMORY_MIN_MB = 128;
export const MEMORY_MAX_MB = 10240;

/** Lambda refuses provisioned or reserved concurrency that leaves fewer unreserved executions than this. */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/** Where the functions run: Lambda's own fleet, or EC2 instances of a capacity provider (docs/managed-instances.md). */
export const COMPUTE_MODES = ['standard', 'managed-instances'] as const;
export type ComputeMode = (typeof COMPUTE_MODES)[number];

export interface AppConfig {
  /** Databases to deploy a target for. @default ['dynamodb'] */
  readonly targets: readonly Target[];
  /** The keep-alive flag as given. @default 'on' */
  readonly keepAlive: KeepAliveFlag;
  /** The variants deployed: ['on'], ['off'] or ['on', 'off'] for `both`. */
  readonly keepAliveVariants: readonly KeepAliveVariant[];
  /** Provisioned executions per function alias; 0 means no alias. @default 0 */
  readonly provisionedConcurrency: number;
  /** The account's Lambda concurrency limit in the region, which bounds provisionedConcurrency. @default 1000 */
  readonly accountConcurrency: number;
  /** Function memory in MB. @default 512 */
  readonly memorySize: number;
  /** X-Ray active tracing on functions and the API stage. @default false */
  readonly tracing: boolean;
  /** Deploy the AWS Lambda Power Tuning application. @default true */
  readonly powerTuning: boolean;
  /** Emit source maps and enable them at run time (costs init time). @default false */
  readonly sourceMaps: boolean;
  /** What happens to the table, ledger and logs on `cdk destroy`. @default 'destroy' */
  readonly removalPolicy: RemovalPolicyFlag;
  /** Retention of the functions' log groups, in days. @default 7 */
  readonly logRetentionDays: number;
  /** Serverless Application Repository id of Power Tuning (override for a private copy). */
  readonly powerTuningApplicationId: string;
  /** Pinned semantic version of Power Tuning. @default '4.4.0' */
  readonly powerTuningVersion: string;
  /** Stage throttling: steady requests per second across the API. @default 100 */
  readonly apiRateLimit: number;
  /** Stage throttling: burst size. @default 200 */
  readonly apiBurstLimit: number;
  /**
   * The context keys the targets' modules read (TargetModule.context), each trimmed, '' when
   * unset; a key a targeted module requires is never ''.
   */
  readonly targetContext: Readonly<Record<string, string>>;
  /**
   * Each function's init opens its database connection with a cheap real call (DynamoDB
   * DescribeTable, a QLDB session, a DSQL connection), as the provisioned-concurrency article did.
   * Redis cannot: its URL comes from the Parameters and Secrets extension, which AWS documents as
   * not callable during INIT. @default false
   */
  readonly prewarmConnection: boolean;
  /**
   * The operations to deploy functions for. The local lab synthesizes a load run with only the
   * operations its phases call (a first run's synth is a third as long). @default every operation
   */
  readonly operations: readonly Operation[];
  /** Lambda's own fleet, or Lambda Managed Instances on a capacity provider. @default 'standard' */
  readonly compute: ComputeMode;
  /** The capacity provider and each function's settings; present when compute is managed-instances. */
  readonly managedInstances?: ManagedInstancesConfig;
  /**
   * The context itself, for the flags a target module defines and parses in its own folder
   * (targets/<name>/): this file interprets only the lab's own flags. @default - none read
   */
  readonly context?: ContextReader;
}

export interface ManagedInstancesConfig {
  /** PerExecutionEnvironmentMaxConcurrency. @default - Lambda's default */
  readonly maxConcurrency?: number;
  /** ExecutionEnvironmentMemoryGiBPerVCpu. @default - Lambda's default */
  readonly memoryGiBPerVCpu?: number;
  /** Instance types the capacity provider may launch. @default - any arm64 type Lambda picks */
  readonly instanceTypes: readonly string[];
  /** The capacity provider's vCPU ceiling. @default - Lambda's default */
  readonly maxVCpu?: number;
}

export class ConfigError extends Error {
  constructor(flag: string, value: unknown, allowed: string) {
    super(`Invalid context flag ${flag}=${JSON.stringify(value)}: expected ${allowed}`);
    this.name = 'ConfigError';
  }
}

export type ContextReader = (key: string) => unknown;

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

function required(read: ContextReader, flag: string, allowed: string): unknown {
  const value = read(flag);
  if (isBlank(value)) throw new ConfigError(flag, value ?? '', allowed);
  return value;
}

function parseEnum<T extends string>(read: ContextReader, flag: string, allowed: readonly T[]): T {
  const text = `one of ${allowed.join(', ')}`;
  const value = required(read, flag, text);
  const s = String(value).trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(s)) throw new ConfigError(flag, value, text);
  return s as T;
}

function parseBoolean(read: ContextReader, flag: string): boolean {
  const text = 'true or false';
  const value = required(read, flag, text);
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new ConfigError(flag, value, text);
}

/** A flag a cdk.json written before it existed lacks: blank reads as false. */
function parseOptionalBoolean(read: ContextReader, flag: string): boolean {
  return isBlank(read(flag)) ? false : parseBoolean(read, flag);
}

function parseInteger(read: ContextReader, flag: string, min: number, max: number, allowed: string): number {
  const value = required(read, flag, allowed);
  const s = String(value).trim();
  if (!/^-?\d+$/.test(s)) throw new ConfigError(flag, value, allowed);
  const n = Number(s);
  if (n < min || n > max) throw new ConfigError(flag, value, allowed);
  return n;
}

function parseOperations(read: ContextReader): Operation[] {
  const value = read('operations');
  if (isBlank(value)) return [...OPERATIONS];
  const text = `a comma list of ${OPERATIONS.join(', ')}`;
  const parts = (Array.isArray(value) ? value.map(String) : String(value).split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0 || parts.some((p) => !(OPERATIONS as readonly string[]).includes(p)))
    throw new ConfigError('operations', value, text);
  // A stable order: the same set always synthesizes the same template.
  return OPERATIONS.filter((o) => parts.includes(o));
}

function parseTargets(read: ContextReader): Target[] {
  const text = `a comma list of ${TARGETS.join(', ')}`;
  const value = required(read, 'targets', text);
  const parts = (Array.isArray(value) ? value.map(String) : String(value).split(','))
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (parts.length === 0) throw new ConfigError('targets', value, text);
  for (const p of parts) {
    if (!(TARGETS as readonly string[]).includes(p)) throw new ConfigError('targets', value, text);
  }
  // Keep a stable order so the same set always synthesizes the same template.
  return TARGETS.filter((t) => parts.includes(t));
}

function parseText(read: ContextReader, flag: string, pattern: RegExp, allowed: string): string {
  const value = required(read, flag, allowed);
  const s = String(value).trim();
  if (!pattern.test(s)) throw new ConfigError(flag, value, allowed);
  return s;
}

/** The registered targets' context keys: '' when unset, an error when a targeted module requires it. */
function parseTargetContext(read: ContextReader, targets: readonly Target[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, { target, key }] of registeredContextKeys()) {
    const value = read(name);
    if (isBlank(value)) {
      if (key.required && targets.includes(target))
        throw new ConfigError(name, value ?? '', `${key.allowed}, required when targets includes ${target}`);
      out[name] = '';
      continue;
    }
    const s = String(value).trim();
    if (!key.valid(s)) throw new ConfigError(name, value, key.allowed);
    out[name] = s;
  }
  return out;
}

/**
 * Lambda keeps 100 of the account's concurrency unreserved, so every alias's provisioned
 * executions together must fit in the rest. Checked here because CloudFormation only
 * finds out mid-deploy, after it has created half the stack.
 */
function parseProvisionedConcurrency(
  read: ContextReader,
  targets: readonly Target[],
  variants: readonly KeepAliveVariant[],
  accountConcurrency: number,
  operations: readonly Operation[],
): number {
  const functions = labFunctions(targets, variants, operations).length;
  const bound = Math.max(0, accountConcurrency - LAMBDA_UNRESERVED_MINIMUM);
  const perFunction = Math.floor(bound / functions);
  return parseInteger(
    read,
    'provisionedConcurrency',
    0,
    perFunction,
    `an integer from 0 to ${perFunction}: ${functions} functions x provisionedConcurrency must be <= ${bound} (accountConcurrency ${accountConcurrency} - ${LAMBDA_UNRESERVED_MINIMUM} Lambda keeps unreserved)`,
  );
}

/**
 * Lambda Managed Instances limits the lab checks before CloudFormation does (docs/managed-instances.md
 * cites each): PerExecutionEnvironmentMaxConcurrency 1-1600 and ExecutionEnvironmentMemoryGiBPerVCpu
 * 2.0-8.0 (Lambda API reference, LambdaManagedInstancesCapacityProviderConfig), at least 2048 MB of
 * function memory, and a vCPU ceiling of 12-15000 (CDK's CapacityProvider validation).
 */
export const MANAGED_MAX_CONCURRENCY = { min: 1, max: 1600 } as const;
export const MANAGED_MEMORY_GIB_PER_VCPU = { min: 2, max: 8 } as const;
export const MANAGED_MEMORY_MIN_MB = 2048;
export const MANAGED_MAX_VCPU = { min: 12, max: 15000 } as const;
/**
 * The lab's functions are arm64, and a capacity provider's architecture must match its functions':
 * Graviton types of the C, M and R families, .large and up (the sizes Lambda Managed Instances
 * launches).
 */
export const MANAGED_INSTANCE_TYPE_PATTERN = /^[cmr]\d+g[a-z]*\.(large|\d*xlarge)$/;

const MANAGED_FLAGS = [
  'managedInstancesMaxConcurrency',
  'managedInstancesMemoryGiBPerVCpu',
  'managedInstancesTypes',
  'managedInstancesMaxVCpu',
] as const;

function parseOptionalInteger(
  read: ContextReader,
  flag: string,
  min: number,
  max: number,
  allowed: string,
): number | undefined {
  return isBlank(read(flag)) ? undefined : parseInteger(read, flag, min, max, allowed);
}

function parseInstanceTypes(read: ContextReader): string[] {
  const value = read('managedInstancesTypes');
  if (isBlank(value)) return [];
  const text =
    'a comma list of arm64 (Graviton) C, M or R instance types, .large and up, e.g. m7g.large,c7g.xlarge';
  const parts = (Array.isArray(value) ? value.map(String) : String(value).split(','))
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (parts.length === 0 || parts.some((p) => !MANAGED_INSTANCE_TYPE_PATTERN.test(p)))
    throw new ConfigError('managedInstancesTypes', value, text);
  return [...new Set(parts)].sort();
}

/**
 * compute=managed-instances and its companion flags; the combinations Managed Instances refuse
 * fail here with the flag named, not half way through a deploy.
 */
function parseManagedInstances(
  read: ContextReader,
  compute: ComputeMode,
  memorySize: number,
  provisionedConcurrency: number,
): ManagedInstancesConfig | undefined {
  if (compute === 'standard') {
    const stray = MANAGED_FLAGS.find((f) => !isBlank(read(f)));
    if (stray !== undefined)
      throw new ConfigError(stray, read(stray), 'no value unless compute=managed-instances');
    return undefined;
  }
  if (provisionedConcurrency > 0) {
    throw new ConfigError(
      'provisionedConcurrency',
      read('provisionedConcurrency'),
      '0 with compute=managed-instances: Managed Instances keep their execution environments running and scale them by CPU use, not by provisioned concurrency',
    );
  }
  const ratioValue = read('managedInstancesMemoryGiBPerVCpu');
  let memoryGiBPerVCpu: number | undefined;
  if (!isBlank(ratioValue)) {
    const text = String(ratioValue).trim();
    const n = Number(text);
    const { min, max } = MANAGED_MEMORY_GIB_PER_VCPU;
    if (!(/^\d+(\.\d+)?$/.test(text) && n >= min && n <= max))
      throw new ConfigError(
        'managedInstancesMemoryGiBPerVCpu',
        ratioValue,
        `a number of GiB from ${min} to ${max}`,
      );
    memoryGiBPerVCpu = n;
  }
  // An environment gets memory / ratio vCPUs: at least one vCPU's worth of memory, and Lambda's minimum.
  const minMemory = Math.max(
    MANAGED_MEMORY_MIN_MB,
    (memoryGiBPerVCpu ?? MANAGED_MEMORY_GIB_PER_VCPU.min) * 1024,
  );
  if (memorySize < minMemory) {
    throw new ConfigError(
      'memorySize',
      read('memorySize'),
      `at least ${minMemory} MB with compute=managed-instances (Lambda Managed Instances' minimum is ${MANAGED_MEMORY_MIN_MB} MB, and an environment needs one vCPU's memory: memory per vCPU x 1024)`,
    );
  }
  const { min: cMin, max: cMax } = MANAGED_MAX_CONCURRENCY;
  const { min: vMin, max: vMax } = MANAGED_MAX_VCPU;
  return {
    maxConcurrency: parseOptionalInteger(
      read,
      'managedInstancesMaxConcurrency',
      cMin,
      cMax,
      `an integer from ${cMin} to ${cMax} (concurrent invocations per execution environment)`,
    ),
    memoryGiBPerVCpu,
    instanceTypes: parseInstanceTypes(read),
    maxVCpu: parseOptionalInteger(
      read,
      'managedInstancesMaxVCpu',
      vMin,
      vMax,
      `an integer from ${vMin} to ${vMax} (the capacity provider's vCPU ceiling)`,
    ),
  };
}

export function parseConfig(read: ContextReader): AppConfig {
  const targets = parseTargets(read);
  const keepAlive = parseEnum(read, 'keepAlive', KEEP_ALIVE_FLAGS);
  const keepAliveVariants: KeepAliveVariant[] = keepAlive === 'both' ? ['on', 'off'] : [keepAlive];
  const operations = parseOperations(read);
  const accountConcurrency = parseInteger(
    read,
    'accountConcurrency',
    1,
    1_000_000,
    "an integer from 1 to 1000000 (the account's Lambda concurrency limit in the region)",
  );
  const retention = parseInteger(
    read,
    'logRetentionDays',
    1,
    3653,
    `one of ${LOG_RETENTION_DAYS.join(', ')} (days)`,
  );
  if (!(LOG_RETENTION_DAYS as readonly number[]).includes(retention)) {
    throw new ConfigError(
      'logRetentionDays',
      read('logRetentionDays'),
      `one of ${LOG_RETENTION_DAYS.join(', ')} (days)`,
    );
  }
  const provisionedConcurrency = parseProvisionedConcurrency(
    read,
    targets,
    keepAliveVariants,
    accountConcurrency,
    operations,
  );
  const memorySize = parseInteger(
    read,
    'memorySize',
    MEMORY_MIN_MB,
    MEMORY_MAX_MB,
    `an integer number of MB from ${MEMORY_MIN_MB} to ${MEMORY_MAX_MB}`,
  );
  // A cdk.json written before the flag existed lacks it: standard.
  const compute = isBlank(read('compute')) ? 'standard' : parseEnum(read, 'compute', COMPUTE_MODES);
  const managedInstances = parseManagedInstances(read, compute, memorySize, provisionedConcurrency);
  return {
    targets,
    keepAlive,
    keepAliveVariants,
    provisionedConcurrency,
    accountConcurrency,
    memorySize,
    tracing: parseBoolean(read, 'tracing'),
    powerTuning: parseBoolean(read, 'powerTuning'),
    sourceMaps: parseBoolean(read, 'sourceMaps'),
    removalPolicy: parseEnum(read, 'removalPolicy', REMOVAL_POLICIES),
    logRetentionDays: retention,
    powerTuningApplicationId: parseText(
      read,
      'powerTuningApplicationId',
      /^arn:aws[a-z-]*:serverlessrepo:[a-z0-9-]+:\d{12}:applications\/[A-Za-z0-9-]+$/,
      'a Serverless Application Repository application ARN',
    ),
    powerTuningVersion: parseText(
      read,
      'powerTuningVersion',
      /^\d+\.\d+\.\d+$/,
      'a semantic version such as 4.4.0',
    ),
    apiRateLimit: parseInteger(
      read,
      'apiRateLimit',
      1,
      10000,
      'an integer number of requests per second from 1 to 10000',
    ),
    apiBurstLimit: parseInteger(read, 'apiBurstLimit', 1, 5000, 'an integer from 1 to 5000'),
    targetContext: parseTargetContext(read, targets),
    prewarmConnection: parseOptionalBoolean(read, 'prewarmConnection'),
    context: read,
    operations,
    compute,
    ...(managedInstances === undefined ? {} : { managedInstances }),
  };
}
