/**
 * The built-in targets' cost parts, registered from one place until each is a TargetModule whose
 * `cost` member registerTarget adds; each part lives in its target's folder (cost.ts, prices.json).
 */
import { hasTargetCost, registerTargetCost, type TargetCost } from '../core/cost-registry';
import { cost as dsql } from './dsql/cost';
import { cost as dynamodb } from './dynamodb/cost';
import { cost as qldb } from './qldb/cost';
import { cost as redis } from './redis/cost';

export const BUILTIN_COSTS: Readonly<Record<string, TargetCost>> = { dynamodb, qldb, redis, dsql };

/** Registers each built-in part once per process, however often it is called. */
export function registerBuiltinCosts(): void {
  for (const [name, cost] of Object.entries(BUILTIN_COSTS))
    if (!hasTargetCost(name)) registerTargetCost(name, cost);
}
