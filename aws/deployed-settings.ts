/**
 * Whether the deployed stack runs what an experiment step needs (memory, provisioned
 * concurrency, a connection opened at init): read from each function's configuration, never
 * assumed. `npm run experiment -- NAME --target aws` stops with what to deploy when it differs,
 * rather than measuring something else.
 */
import {
  GetFunctionConfigurationCommand,
  GetProvisionedConcurrencyConfigCommand,
  type LambdaClient,
  ProvisionedConcurrencyConfigNotFoundException,
} from '@aws-sdk/client-lambda';
import type { LabFunctionOutputs } from './stack-outputs';

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
): Promise<string[]> {
  const out: string[] = [];
  for (const fn of functions) {
    const config = await lambda.send(new GetFunctionConfigurationCommand({ FunctionName: fn.functionArn }));
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

/** The deploy command that gives a step its settings. */
export function deployCommand(want: StepSettings, targets: readonly string[]): string {
  const flags = [
    `-c targets=${targets.join(',')}`,
    ...(want.memoryMb === undefined ? [] : [`-c memorySize=${want.memoryMb}`]),
    ...(want.provisionedConcurrency === undefined
      ? []
      : [`-c provisionedConcurrency=${want.provisionedConcurrency}`]),
    ...(want.prewarmConnection === undefined ? [] : [`-c prewarmConnection=${want.prewarmConnection}`]),
  ];
  return `npx cdk deploy --all ${flags.join(' ')}`;
}
