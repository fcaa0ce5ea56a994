/** Every database target the stacks can deploy: one entry per target in core/lab-functions.ts. */
import type { Target } from '../../core/lab-functions';
import { dsqlTarget } from './dsql';
import { dynamodbTarget } from './dynamodb';
import { qldbTarget } from './qldb';
import { redisTarget } from './redis';
import type { TargetDefinition } from './types';

export const TARGET_DEFINITIONS: Record<Target, TargetDefinition> = {
  dynamodb: dynamodbTarget,
  qldb: qldbTarget,
  redis: redisTarget,
  dsql: dsqlTarget,
};

export type { DatabaseBinding, DataProps, TargetDefinition } from './types';
