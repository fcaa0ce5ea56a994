/**
 * DynamoDB's part of the cost model: on-demand read and write request units, which its client
 * records as the service returns them (ConsumedCapacity) or, where the engine returns none, by
 * the documented item-size rules below; prices per region in prices.json.
 */
import type { TargetCost } from '../../core/cost-registry';
import type { Metering } from '../../core/price-entry';
import prices from './prices.json' with { type: 'json' };

export const cost: TargetCost = {
  units: {
    'dynamodb.readRequestUnits': 'DynamoDB read request units',
    'dynamodb.writeRequestUnits': 'DynamoDB write request units',
  },
  meteringRules: ['readUnitBytes', 'writeUnitBytes', 'eventuallyConsistentReadFactor', 'transactionalFactor'],
  prices,
  pricesFile: 'targets/dynamodb/prices.json',
};

export type ReadConsistency = 'eventual' | 'strong' | 'transactional';

/** DynamoDB's read units for an item (or a Query's summed bytes) by its documented rules. */
export function dynamodbReadUnits(bytes: number, consistency: ReadConsistency, m: Metering): number {
  const blocks = Math.max(1, Math.ceil(bytes / m.rules.readUnitBytes));
  if (consistency === 'eventual') return blocks * m.rules.eventuallyConsistentReadFactor;
  return consistency === 'transactional' ? blocks * m.rules.transactionalFactor : blocks;
}

/** DynamoDB's write units for an item: 1 per KB (rounded up), doubled in a transaction. */
export function dynamodbWriteUnits(bytes: number, transactional: boolean, m: Metering): number {
  const blocks = Math.max(1, Math.ceil(bytes / m.rules.writeUnitBytes));
  return transactional ? blocks * m.rules.transactionalFactor : blocks;
}
