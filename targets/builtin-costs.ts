/**
 * The built-in targets' cost parts, registered from one place until each is a TargetModule whose
 * `cost` member registerTarget adds; each part lives in its target's folder (cost.ts, prices.json).
 */
import { hasTargetCost, registerTargetCost, type TargetCost } from '../core/cost-registry';
import { loadPriceFile, type PriceFile } from '../core/price-file';
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

/**
 * A region's price file with every registered target's prices, the built-ins' among them even in
 * a process that never loaded its target modules (a test calling the load runner directly).
 */
export function loadLabPrices(path?: string): PriceFile {
  registerBuiltinCosts();
  return loadPriceFile(path);
}
