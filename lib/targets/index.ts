/** Every database target the stacks can deploy: one entry per target in core/lab-functions.ts. */
import type { Target } from '../../core/lab-functions';
import { dynamodbTarget } from './dynamodb';
import { qldbTarget } from './qldb';
import type { TargetDefinition } from './types';

export const TARGET_DEFINITIONS: Record<Target, TargetDefinition> = {
  dynamodb: dynamodbTarget,
  qldb: qldbTarget,
};

export type { DatabaseBinding, DataProps, TargetDefinition } from './types';
