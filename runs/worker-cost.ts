/**
 * What Artillery's own workers cost (a distributed run's load generators), apart from what the
 * lab's functions and databases cost: a line of its own, priced from the workers' region's price
 * file (core/prices/<region>.json), each figure with the price it used. A price the file does not
 * hold, or holds as unverified, gives null with the reason, never a guess.
 *
 * The time is the run's wall time on this machine, which every worker's life fits in: an upper
 * bound (Artillery's own Lambda estimate also counts from before the workers start).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadPriceFile, PRICES_DIR, type PriceFile, priceFileLabel } from '../core/price-file';

export type WorkerShape =
  | {
      readonly platform: 'aws:lambda';
      readonly memoryMb: number;
      readonly architecture: 'arm64' | 'x86_64';
    }
  | {
      readonly platform: 'aws:fargate';
      readonly vcpu: number;
      readonly memoryGb: number;
      readonly spot: boolean;
    };

export interface WorkerCostInput {
  readonly shape: WorkerShape;
  readonly count: number;
  readonly region: string;
  /** Seconds from the first phase's start to the last one's end. */
  readonly wallS: number;
  /** Worker invocations (Lambda): the count per Artillery run. */
  readonly invocations: number;
}

export interface WorkerCost {
  readonly platform: string;
  readonly count: number;
  readonly region: string;
  readonly wallS: number;
  /** Null when a price is missing or unverified (see `unpriced`). */
  readonly usd: number | null;
  readonly unpriced?: string;
  /** The price file and the prices used, with their sources. */
  readonly prices: string | null;
  readonly used: readonly {
    readonly key: string;
    readonly quantity: number;
    readonly unit: string;
    readonly source: string;
  }[];
}

/** The price file of a region, when the lab has one. */
export function regionPriceFile(region: string): PriceFile | undefined {
  const file = join(PRICES_DIR, `${region}.json`);
  return existsSync(file) ? loadPriceFile(file) : undefined;
}

export function workerCost(input: WorkerCostInput, prices = regionPriceFile(input.region)): WorkerCost {
  const base = {
    platform: input.shape.platform,
    count: input.count,
    region: input.region,
    wallS: input.wallS,
  };
  if (!prices)
    return {
      ...base,
      usd: null,
      unpriced: `no price file for ${input.region} in core/prices/`,
      prices: null,
      used: [],
    };
  const label = priceFileLabel(prices);
  if (input.shape.platform === 'aws:fargate') {
    const key = `fargate.vcpuSeconds.linux-${input.shape.spot ? 'spot' : 'on-demand'}`;
    return {
      ...base,
      usd: null,
      unpriced: `${key} is not in ${label}: Fargate's per-region rates are rendered by the pricing page and were not read`,
      prices: label,
      used: [],
    };
  }
  const shape = input.shape;
  const gbSecondsKey = `lambda.gbSeconds.${shape.architecture}`;
  const wanted = [
    { key: gbSecondsKey, quantity: input.count * (shape.memoryMb / 1024) * input.wallS },
    { key: 'lambda.requests', quantity: input.invocations },
  ];
  let usd = 0;
  const used: WorkerCost['used'][number][] = [];
  for (const { key, quantity } of wanted) {
    const p = prices.prices[key];
    if (!p) return { ...base, usd: null, unpriced: `${key} is not in ${label}`, prices: label, used };
    used.push({ key, quantity, unit: p.unit, source: p.source });
    if (p.usd === null)
      return { ...base, usd: null, unpriced: `${key}: ${p.unverified ?? 'unverified'}`, prices: label, used };
    usd += (p.usd / p.per) * quantity;
  }
  return { ...base, usd, prices: label, used };
}

/** The one line a run prints for its workers. */
export function workerCostLine(c: WorkerCost): string {
  const what = `${c.count} ${c.platform} worker${c.count === 1 ? '' : 's'} in ${c.region} for at most ${Math.round(c.wallS)} s`;
  if (c.usd === null) return `Load generators: ${what}: unpriced (${c.unpriced}).`;
  return `Load generators: ${what}: at most $${c.usd.toFixed(4)} at ${c.prices} (${c.used.map((u) => u.key).join(' + ')}; not in $ per million).`;
}
