/**
 * Cost is data plus one function: the prices live in dated files under core/prices/ (each
 * with its unit and source); this turns measured billed units into dollars. No price appears
 * in code.
 */
import LAMBDA_PRICES from './prices/lambda-2025-11-19.json' with { type: 'json' };

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
