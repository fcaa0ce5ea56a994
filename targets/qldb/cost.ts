/**
 * QLDB's part of the cost model: read and write I/Os as each session result reports them
 * (ConsumedIOs); prices per region in prices.json (the service shut down on 2025-07-31, so the
 * column is historic).
 */
import type { TargetCost } from '../../core/cost-registry';
import prices from './prices.json' with { type: 'json' };

export const cost: TargetCost = {
  units: { 'qldb.readIos': 'QLDB read I/Os', 'qldb.writeIos': 'QLDB write I/Os' },
  prices,
  pricesFile: 'targets/qldb/prices.json',
};
