/**
 * Whether the deployed stack runs what an experiment step needs (its functions and keep-alive
 * variant, memory, provisioned concurrency, a connection opened at init, and what the target's
 * own check asks of its database, such as an index its query reads): read from each function's
 * configuration and the deployed database, never assumed. `npm run experiment -- NAME --target aws` stops with what to deploy when it differs,
 * rather than measuring something else.
 */
import {
  GetFunctionConfigurationCommand,
  type GetFunctionConfigurationCommandOutput,
  GetProvisionedConcurrencyConfigCommand,
  type LambdaClient,
  ProvisionedConcurrencyConfigNotFoundException,
} from '@aws-sdk/client-lambda';
import type { KeepAliveVariant, Operation } from '../core/lab-functions';
import { parseFunctionKey, targetInfo } from '../core/lab-functions';
import type { LabFunctionOutputs, LabOutputs } from './stack-outputs';

/** What a step needs of the deployed functions; an absent field is not checked. */
export interface StepSettings {
  readonly memoryMb?: number;
  readonly provisionedConcurrency?: number;
  readonly prewarmConnection?: boolean;
}

/** The alias of an invoked ARN (`...:function:name:live`), if any. */
function aliasOf(fn: LabFunctionOutputs): string | undefined {
  return fn.invokedArn === fn.functionArn ? undefined : fn.invokedArn.split(':').at(-1);
}

/** One line per setting a function does not have; [] when every function matches. */
export async function deployedMismatches(
  lambda: Pick<LambdaClient, 'send'>,
  functions: readonly LabFunctionOutputs[],
  want: StepSettings,
  /** Reads a function's configuration (a caller that read it already passes its copy). */
  configOf: (fn: LabFunctionOutputs) => Promise<GetFunctionConfigurationCommandOutput> = (fn) =>
    lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn.functionArn })),
): Promise<string[]> {
  const out: string[] = [];
  for (const fn of functions) {
    const config = await configOf(fn);
    if (want.memoryMb !== undefined && config.MemorySize !== want.memoryMb)
      out.push(`${fn.key}: memory ${config.MemorySize} MB, the step needs ${want.memoryMb} MB`);
    const prewarm = config.Environment?.Variables?.PREWARM_CONNECTION === 'on';
    if (want.prewarmConnection !== undefined && prewarm !== want.prewarmConnection)
      out.push(`${fn.key}: prewarmConnection ${prewarm}, the step needs ${want.prewarmConnection}`);
    if (want.provisionedConcurrency !== undefined) {
      const alias = aliasOf(fn);
      let have = 0;
      if (alias) {
        try {
          const pc = await lambda.send(
            new GetProvisionedConcurrencyConfigCommand({ FunctionName: fn.name, Qualifier: alias }),
          );
          have = pc.RequestedProvisionedConcurrentExecutions ?? 0;
        } catch (e) {
          if (!(e instanceof ProvisionedConcurrencyConfigNotFoundException)) throw e;
        }
      }
      if (have !== want.provisionedConcurrency)
        out.push(`${fn.key}: provisioned concurrency ${have}, the step needs ${want.provisionedConcurrency}`);
    }
  }
  return out;
}

/** The deploy command that gives a step its settings (and, given, its keep-alive variants). */
export function deployCommand(
  want: StepSettings,
  targets: readonly string[],
  variants?: readonly KeepAliveVariant[],
): string {
  const keepAlive = variants === undefined ? undefined : variants.length > 1 ? 'both' : variants[0];
  const flags = [
    `-c targets=${targets.join(',')}`,
    ...(keepAlive === undefined ? [] : [`-c keepAlive=${keepAlive}`]),
    ...(want.memoryMb === undefined ? [] : [`-c memorySize=${want.memoryMb}`]),
    ...(want.provisionedConcurrency === undefined
      ? []
      : [`-c provisionedConcurrency=${want.provisionedConcurrency}`]),
    ...(want.prewarmConnection === undefined ? [] : [`-c prewarmConnection=${want.prewarmConnection}`]),
  ];
  return `npx cdk deploy --all ${flags.join(' ')}`;
}

/** What one experiment step calls and needs of the deployed stack. */
export interface DeployedStepNeeds {
  readonly name: string;
  readonly targets: readonly string[];
  readonly variants: readonly KeepAliveVariant[];
  readonly operations: readonly Operation[];
  readonly settings: StepSettings;
}

/**
 * Every step against the deployed stack: for each target x operation x keep-alive variant it
 * calls, a deployed function (a `-keepalive-on|off` key, or one function whose KEEP_ALIVE is that
 * variant) with the step's settings, and what the target's deployedCheck asks of its database. Lines to
 * print (what differs, then the deploy command, per step), or [] when the stack runs them all.
 */
export async function deployedStepMismatches(
  clients: {
    readonly lambda: Pick<LambdaClient, 'send'>;
    /** The SDK client configuration a target's deployedCheck builds its clients with. */
    readonly clientConfig: object;
  },
  outputs: LabOutputs,
  steps: readonly DeployedStepNeeds[],
): Promise<string[]> {
  const out: string[] = [];
  // Each function read once, however many steps call it.
  const configs = new Map<string, GetFunctionConfigurationCommandOutput>();
  const cached = async (fn: LabFunctionOutputs) => {
    const have = configs.get(fn.functionArn);
    if (have) return have;
    const config = await clients.lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: fn.functionArn }),
    );
    configs.set(fn.functionArn, config);
    return config;
  };
  for (const step of steps) {
    if (step.targets.length === 0) continue;
    const differs: string[] = [];
    const chosen: LabFunctionOutputs[] = [];
    /** target -> table name -> the operations called on it */
    const databases = new Map<string, Map<string, Set<Operation>>>();
    for (const target of step.targets) {
      for (const operation of step.operations) {
        const candidates = outputs.functions.filter((f) => {
          const p = parseFunctionKey(f.key);
          return p?.target === target && p.operation === operation;
        });
        for (const variant of step.variants) {
          let found: { fn: LabFunctionOutputs; table?: string } | undefined;
          for (const fn of candidates) {
            const config = await cached(fn);
            const vars = config.Environment?.Variables ?? {};
            // A `-keepalive-` key names its variant; a single variant's function says it in KEEP_ALIVE.
            if ((parseFunctionKey(fn.key)?.keepAlive ?? vars.KEEP_ALIVE) !== variant) continue;
            found = { fn, table: vars.TABLE_NAME };
            break;
          }
          if (!found) {
            differs.push(`${target}-${operation}, keep-alive ${variant}: no such function is deployed`);
            continue;
          }
          chosen.push(found.fn);
          const table = found.table ?? outputs.tableName;
          if (!table || !targetInfo(target)?.deployedCheck) continue;
          const tables = databases.get(target) ?? new Map<string, Set<Operation>>();
          databases.set(target, tables.set(table, (tables.get(table) ?? new Set()).add(operation)));
        }
      }
    }
    if (Object.keys(step.settings).length > 0)
      differs.push(...(await deployedMismatches(clients.lambda, chosen, step.settings, cached)));
    for (const [target, tables] of databases) {
      const check = await targetInfo(target)?.deployedCheck?.();
      if (!check) continue;
      for (const [table, operations] of tables)
        differs.push(...(await check(table, [...operations], clients.clientConfig)));
    }
    if (differs.length === 0) continue;
    out.push(
      `step ${step.name}: the deployed stack differs from what it needs:`,
      ...differs.map((d) => `  ${d}`),
      `  deploy: ${deployCommand(step.settings, step.targets, step.variants)}`,
    );
  }
  return out;
}
