/** Every database target the stacks can deploy: the built-ins here, the others registered at run time. */
import { type BuiltinTarget, isBuiltinTarget } from '../../core/lab-functions';
import { dsqlTarget } from './dsql';
import { dynamodbTarget } from './dynamodb';
import { qldbTarget } from './qldb';
import { redisTarget } from './redis';
import { registeredTargetDefinition } from './registry';
import type { TargetDefinition } from './types';

const BUILTIN: Record<BuiltinTarget, TargetDefinition> = {
  dynamodb: dynamodbTarget,
  qldb: qldbTarget,
  redis: redisTarget,
  dsql: dsqlTarget,
};

/** The target's CDK definition; a target without one is a clear error, never a silent skip. */
export function targetDefinition(target: string): TargetDefinition {
  const definition = isBuiltinTarget(target) ? BUILTIN[target] : registeredTargetDefinition(target);
  if (!definition)
    throw new Error(
      `target ${target} has no CDK definition: register its module (docs/targets.md: Adding a database target)`,
    );
  return definition;
}

export type { DatabaseBinding, DataProps, TargetDefinition } from './types';
