/**
 * What each database target adds to the stacks: its resources in the data stack, and how a
 * function of the API stack is pointed at them with exactly the permissions its operation needs.
 * Each target's module gives one (targets/<name>/cdk.ts).
 */
import type { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Operation } from '../../core/lab-functions';
import type { AppConfig } from '../config';

/** The variable that tells a function's init to open its connection. */
export { PREWARM_ENV } from '../../lambda/shared/prewarm';

export interface DataProps {
  readonly config: AppConfig;
  readonly removalPolicy: RemovalPolicy;
}

export interface DatabaseBinding {
  /** Sets the function's environment and grants what `operation` needs, nothing more. */
  bind(fn: lambda.Function, operation: Operation): void;
  /**
   * The AWS Parameters and Secrets Lambda Extension for this target's functions, when they read
   * a secret through it. A factory: each function binds its own layer version.
   * @default - no extension
   */
  readonly paramsAndSecrets?: () => lambda.ParamsAndSecretsLayerVersion;
}

export interface TargetDefinition {
  /** Creates the target's resources in the data stack (none for a database the user brings). */
  createData(stack: Stack, props: DataProps): DatabaseBinding;
}

/** A definition, or a loader of one: a module's CDK half, loaded only when the stacks are built. */
export type TargetDefinitionSource = TargetDefinition | (() => Promise<TargetDefinition>);
