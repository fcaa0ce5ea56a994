import type { App, StackProps } from 'aws-cdk-lib';
import { type AppConfig, parseConfig } from './config';
import { ApiStack } from './stacks/api-stack';
import { DataStack } from './stacks/data-stack';
import { PowerTuningStack } from './stacks/power-tuning-stack';

export const STACK_PREFIX = 'LatencyLab';

export interface LabStacks {
  readonly config: AppConfig;
  readonly data: DataStack;
  readonly api: ApiStack;
  readonly powerTuning?: PowerTuningStack;
}

/** Builds every stack from the app's context. Shared by bin/app.ts and the tests. */
export function buildLab(app: App, stackProps: StackProps = {}): LabStacks {
  const config = parseConfig((key) => app.node.tryGetContext(key));
  const data = new DataStack(app, `${STACK_PREFIX}-Data`, { ...stackProps, config });
  const api = new ApiStack(app, `${STACK_PREFIX}-Api`, {
    ...stackProps,
    config,
    bindings: data.bindings,
  });
  // The functions read the data stack's SSM parameters (constructs/hand-off.ts): data first.
  api.addStackDependency(data);
  let powerTuning: PowerTuningStack | undefined;
  if (config.powerTuning) {
    powerTuning = new PowerTuningStack(app, `${STACK_PREFIX}-PowerTuning`, {
      ...stackProps,
      applicationId: config.powerTuningApplicationId,
      semanticVersion: config.powerTuningVersion,
      functionStackName: api.stackName,
    });
    powerTuning.addStackDependency(api);
  }
  return { config, data, api, powerTuning };
}
