/**
 * Every experiment, one per source article, in the order `--list` prints them. Importing
 * this loads the definitions only: no SDK, engine, Artillery or renderer.
 */
import { keepAlive } from './definitions/keep-alive';
import { managedInstances } from './definitions/managed-instances';
import { newsTop10 } from './definitions/news-top10';
import { powerTuning } from './definitions/power-tuning';
import { provisionedIdle } from './definitions/provisioned-idle';
import { qldbVsDynamodb } from './definitions/qldb-vs-dynamodb';
import { redisVsOthers } from './definitions/redis-vs-others';
import type { ExperimentDefinition } from './types';

export const EXPERIMENTS: readonly ExperimentDefinition[] = [
  keepAlive,
  qldbVsDynamodb,
  redisVsOthers,
  provisionedIdle,
  newsTop10,
  powerTuning,
  managedInstances,
];

export function findExperiment(name: string): ExperimentDefinition | undefined {
  return EXPERIMENTS.find((e) => e.name === name);
}
