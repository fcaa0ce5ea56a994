/** Every database target the local lab can run: the built-ins here, the others registered at run time. */
import { type BuiltinTarget, isBuiltinTarget } from '../../core/lab-functions';
import { dsqlTarget } from './dsql';
import { dynamodbTarget } from './dynamodb';
import { qldbTarget } from './qldb';
import { redisTarget } from './redis';
import { registeredLocalTarget } from './registry';
import type { LocalTarget } from './types';

const BUILTIN: Record<BuiltinTarget, LocalTarget> = {
  dynamodb: dynamodbTarget,
  qldb: qldbTarget,
  redis: redisTarget,
  dsql: dsqlTarget,
};

/** The target's local engine; a target without one is a clear error. */
export function localTarget(target: string): LocalTarget {
  const local = isBuiltinTarget(target) ? BUILTIN[target] : registeredLocalTarget(target);
  if (!local)
    throw new Error(
      `target ${target} has no local target: register its module (docs/targets.md: Adding a database target)`,
    );
  return local;
}

export type { CustomResourceRunner, LocalDatabase, LocalTarget, ModelAddress } from './types';
export { localName } from './types';
