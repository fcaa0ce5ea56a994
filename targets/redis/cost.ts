/**
 * Redis's part of the cost model: commands, counted by its client as it sends them (Upstash bills
 * per command); prices per region in prices.json.
 */
import type { TargetCost } from '../../core/cost-registry';
import prices from './prices.json' with { type: 'json' };

export const cost: TargetCost = {
  units: { 'redis.commands': 'Redis commands' },
  prices,
  pricesFile: 'targets/redis/prices.json',
};
