/**
 * The valkey target's part of the cost model: ECPUs per request and data stored. Its client
 * records each command's bytes (store.ts: the request and the reply as RESP, a command moving
 * under 1 KB counted as 1 KB); the meter turns them into ECPUs by the pricing page's rule for
 * reads and writes, 1 ECPU per KB transferred (prices.json `metering`). Modeled, not measured:
 * the rule AWS publishes is for simple commands, and the store's scripts (EVAL) may also bill
 * for vCPU time, which no client can see. Data stored is billed by the hour, never per request:
 * its minimum is a line of its own (prices.json `separate`).
 */
import type { TargetCost } from '../../core/cost-registry';
import type { BilledQuantity } from '../../core/timing.mjs';
import { VALKEY_COMMANDS, VALKEY_ECPU_BYTES, VALKEY_TRANSFER_BYTES } from './meter-keys';
import prices from './prices.json' with { type: 'json' };

export const VALKEY_ECPU = 'valkey.ecpu';
export const VALKEY_DATA_STORED = 'valkey.dataStoredGbHours';

/** One response's ECPUs: its commands' bytes, each at least 1 KB, over the bytes per ECPU. */
export function ecpusOf(raw: ReadonlyMap<string, number>, rules: Readonly<Record<string, number>>): number {
  return (raw.get(VALKEY_ECPU_BYTES) ?? 0) / rules.bytesPerEcpu;
}

export const cost: TargetCost = {
  units: {
    [VALKEY_ECPU]: 'Valkey ECPUs (modeled)',
    [VALKEY_DATA_STORED]: 'Valkey data stored (GB-hours)',
  },
  meteringRules: ['bytesPerEcpu', 'minimumDataStoredGb'],
  meter: {
    raw: [VALKEY_COMMANDS, VALKEY_TRANSFER_BYTES, VALKEY_ECPU_BYTES],
    bill: (raw, rules): BilledQuantity[] => [
      { key: VALKEY_ECPU, quantity: ecpusOf(raw, rules), basis: 'modeled' },
    ],
  },
  prices,
  pricesFile: 'targets/valkey/prices.json',
};
