/** Every database target the local lab can run: one entry per target in core/lab-functions.ts. */
import type { Target } from '../../core/lab-functions';
import { dsqlTarget } from './dsql';
import { dynamodbTarget } from './dynamodb';
import { qldbTarget } from './qldb';
import { redisTarget } from './redis';
import type { LocalTarget } from './types';

export const LOCAL_TARGETS: Record<Target, LocalTarget> = {
  dynamodb: dynamodbTarget,
  qldb: qldbTarget,
  redis: redisTarget,
  dsql: dsqlTarget,
};

export type { CustomResourceRunner, LocalDatabase, LocalTarget, ModelAddress } from './types';
export { localName } from './types';
