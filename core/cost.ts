/**
 * Cost is data plus one function: the prices live in dated files (each with its unit and
 * source), Lambda's and API Gateway's under core/prices/ and each target's in its folder, joined
 * by core/price-file.ts; this turns measured billed units into dollars. No price appears in code.
 */
import type { CostGroup, PriceFile } from './price-file';
import LAMBDA_PRICES from './prices/lambda-2025-11-19.json' with { type: 'json' };
import { type UnitBasis, weakerBasis } from './timing.mjs';

export type Architecture = 'arm64' | 'x86_64';

export interface LambdaPrices {
  readonly date: string;
  readonly source: string;
  readonly lambda: {
    readonly baseMemoryMb: number;
    readonly perMsAt128Mb: Readonly<Record<Architecture, number>>;
  };
  readonly stepFunctions: { readonly perTransition: number };
}

/** The prices local Power Tuning and the report use unless told otherwise. */
export const DEFAULT_PRICES: LambdaPrices = LAMBDA_PRICES;

export interface BilledLambda {
  /** Billed duration, ms: whole ms, as the REPORT line's Billed Duration. */
  readonly billedMs: number;
  readonly memoryMb: number;
  readonly architecture: Architecture;
}

/**
 * Dollars for billed Lambda time: billed ms (rounded up to a whole ms) x the price of a ms at
 * the base memory x memory / base memory, Power Tuning's formula.
 */
export function lambdaCostUsd(b: BilledLambda, prices: LambdaPrices = DEFAULT_PRICES): number {
  if (!(Number.isFinite(b.billedMs) && b.billedMs >= 0 && Number.isFinite(b.memoryMb) && b.memoryMb > 0)) {
    throw new RangeError(
      `billed ms and memory must be finite and >= 0 / > 0, got ${b.billedMs} ms, ${b.memoryMb} MB`,
    );
  }
  return (
    Math.ceil(b.billedMs) *
    prices.lambda.perMsAt128Mb[b.architecture] *
    (b.memoryMb / prices.lambda.baseMemoryMb)
  );
}

// ------------------------------------------------------------------ the lab's full cost

export type { UnitBasis };

/** One billed quantity of a run (or of one request): a price key and how many of its units. */
export interface BilledQuantity {
  /** A key of the price file's `prices`, e.g. 'lambda.gbSeconds.arm64'. */
  readonly key: string;
  readonly quantity: number;
  readonly basis: UnitBasis;
}

export interface CostComponent {
  readonly key: string;
  readonly group: CostGroup;
  readonly quantity: number;
  readonly unit: string;
  readonly basis: UnitBasis;
  /** Dollars per `per` units, as the price file says; null when the price is unverified. */
  readonly usd: number | null;
  readonly per: number;
  readonly source: string;
  /** Dollars for `quantity`; null when unpriced. */
  readonly totalUsd: number | null;
  /** Dollars per million requests; null when unpriced. */
  readonly usdPerMillionRequests: number | null;
  readonly unverified?: string;
}

export interface CostBreakdown {
  readonly requests: number;
  readonly components: readonly CostComponent[];
  /** $ per million requests by group and in total (priced components only). */
  readonly perMillion: Readonly<Record<CostGroup | 'total', number>>;
  /** Keys whose price is unverified: the totals leave them out and say so. */
  readonly unpriced: readonly string[];
}

/**
 * The one cost function: billed quantities x the price file's prices. Pure; every dollar figure
 * the lab prints comes from here. `requests` is what the quantities served (per-million divisor).
 */
export function costOf(
  quantities: readonly BilledQuantity[],
  requests: number,
  prices: PriceFile,
): CostBreakdown {
  if (!(Number.isInteger(requests) && requests > 0))
    throw new RangeError(`requests must be an integer > 0, got ${requests}`);
  const merged = new Map<string, BilledQuantity>();
  for (const q of quantities) {
    if (!(Number.isFinite(q.quantity) && q.quantity >= 0)) {
      throw new RangeError(`${q.key}: quantity must be finite and >= 0, got ${q.quantity}`);
    }
    if (!(q.key in prices.prices))
      throw new Error(`no price '${q.key}' in ${prices.file ?? 'the price file'}`);
    const seen = merged.get(q.key);
    merged.set(
      q.key,
      seen === undefined
        ? q
        : { ...q, quantity: seen.quantity + q.quantity, basis: weakerBasis(seen.basis, q.basis) },
    );
  }
  const perMillion: Record<CostGroup | 'total', number> = { lambda: 0, api: 0, database: 0, total: 0 };
  const unpriced: string[] = [];
  const components = [...merged.values()].map((q): CostComponent => {
    const p = prices.prices[q.key];
    const totalUsd = p.usd === null ? null : (q.quantity * p.usd) / p.per;
    const usdPerMillionRequests = totalUsd === null ? null : (totalUsd / requests) * 1e6;
    if (usdPerMillionRequests === null) unpriced.push(q.key);
    else {
      perMillion[p.group] += usdPerMillionRequests;
      perMillion.total += usdPerMillionRequests;
    }
    return {
      key: q.key,
      group: p.group,
      quantity: q.quantity,
      unit: p.unit,
      basis: q.basis,
      usd: p.usd,
      per: p.per,
      source: p.source,
      totalUsd,
      usdPerMillionRequests,
      ...(p.unverified === undefined ? {} : { unverified: p.unverified }),
    };
  });
  return { requests, components, perMillion, unpriced };
}

/** A month's bill for the quantities: the free tier of each key on its own line, never per request. */
export interface MonthlyLine {
  readonly key: string;
  readonly billable: number;
  readonly free: number;
  readonly usd: number | null;
}

export function monthlyBill(
  quantities: readonly BilledQuantity[],
  prices: PriceFile,
  options: { readonly freeTier: boolean },
): { readonly lines: readonly MonthlyLine[]; readonly totalUsd: number } {
  const free = new Map<string, number>();
  if (options.freeTier) {
    for (const s of prices.separate)
      for (const [k, n] of Object.entries(s.freeMonthly)) free.set(k, (free.get(k) ?? 0) + n);
  }
  const { components } = costOf(quantities, 1, prices);
  let totalUsd = 0;
  const lines = components.map((c): MonthlyLine => {
    const f = Math.min(c.quantity, free.get(c.key) ?? 0);
    const billable = c.quantity - f;
    const usd = c.usd === null ? null : (billable * c.usd) / c.per;
    totalUsd += usd ?? 0;
    return { key: c.key, billable, free: f, usd };
  });
  return { lines, totalUsd };
}

/** GB-seconds of Billed Duration: ms x MB / 1024 / 1000, as Lambda bills memory in GB. */
export function gbSeconds(billedMs: number, memoryMb: number): number {
  return (billedMs / 1000) * (memoryMb / 1024);
}
