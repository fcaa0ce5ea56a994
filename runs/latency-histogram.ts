/**
 * Latency distributions recorded in HDR histograms (hdr-histogram-js): microsecond
 * resolution, 3 significant digits (0.1 % relative error at any value), mergeable.
 * Every percentile in the lab's outputs comes from here, through its one wrapper,
 * LatencyHistogram.
 */
import { build } from 'hdr-histogram-js';

export const LADDER = [50, 75, 90, 95, 99, 99.9] as const;

export interface Ladder {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p75: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly 'p99.9': number;
  readonly max: number;
}

const US_PER_MS = 1000;

/**
 * One set of samples kept in bounded memory: an HDR histogram (µs, 3 significant digits,
 * plain 32-bit counts: a packed histogram walks its counts ~25x slower per percentile, and a
 * distribution plot asks for a hundred of them) plus the exact count, min, max and sum. What
 * every percentile in summary.json, report.json, the `--logs` report and the experiments comes
 * from, so they agree.
 */
export class LatencyHistogram {
  private readonly h = build({ numberOfSignificantValueDigits: 3 });
  private n = 0;
  private lo = Number.POSITIVE_INFINITY;
  private hi = 0;
  private total = 0;

  /** Records one sample in ms; negative or non-finite values are ignored. */
  record(ms: number): this {
    if (!Number.isFinite(ms) || ms < 0) return this;
    this.h.recordValue(Math.round(ms * US_PER_MS));
    this.n += 1;
    if (ms < this.lo) this.lo = ms;
    if (ms > this.hi) this.hi = ms;
    this.total += ms;
    return this;
  }

  recordAll(values: Iterable<number>): this {
    for (const v of values) this.record(v);
    return this;
  }

  get count(): number {
    return this.n;
  }

  /** Exact smallest sample; 0 without samples. */
  get min(): number {
    return this.n === 0 ? 0 : this.lo;
  }

  get max(): number {
    return this.hi;
  }

  get mean(): number {
    return this.n === 0 ? 0 : this.total / this.n;
  }

  /**
   * Values at percentiles, clamped into [min, max]: HDR answers with a bucket's highest
   * equivalent value (up to 0.1 % above the sample), and a p99 above the max reads as a bug.
   * [] without samples.
   */
  valuesAt(percentiles: readonly number[]): number[] {
    if (this.n === 0) return [];
    return percentiles.map((p) =>
      Math.min(this.hi, Math.max(this.lo, this.h.getValueAtPercentile(p) / US_PER_MS)),
    );
  }

  /** The value at one percentile (see valuesAt); 0 without samples. */
  percentile(p: number): number {
    return this.valuesAt([p])[0] ?? 0;
  }

  /** Adds another histogram's samples, as if they had been recorded here. */
  add(other: LatencyHistogram): this {
    this.h.add(other.h);
    this.n += other.n;
    this.lo = Math.min(this.lo, other.lo);
    this.hi = Math.max(this.hi, other.hi);
    this.total += other.total;
    return this;
  }

  /** The ladder the reports print: exact count, min, mean and max, HDR percentiles; null when empty. */
  ladder(): Ladder | null {
    if (this.n === 0) return null;
    const [p50, p75, p90, p95, p99, p999] = this.valuesAt(LADDER);
    return {
      count: this.n,
      min: this.min,
      mean: this.mean,
      p50,
      p75,
      p90,
      p95,
      p99,
      'p99.9': p999,
      max: this.hi,
    };
  }

  /** Points of the cumulative distribution, for plots: `buckets` evenly spaced percentiles. */
  cdf(buckets = 200): { ms: number; percentile: number }[] {
    const percentiles = Array.from({ length: buckets + 1 }, (_, i) => Math.min(100, (100 * i) / buckets));
    return this.valuesAt(percentiles).map((ms, i) => ({ ms, percentile: percentiles[i] }));
  }
}

/** The ladder of some values; null without a usable one. */
export function ladderOf(values: Iterable<number>): Ladder | null {
  return new LatencyHistogram().recordAll(values).ladder();
}
