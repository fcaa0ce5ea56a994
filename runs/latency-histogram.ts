/**
 * Latency distributions recorded in HDR histograms (hdr-histogram-js): microsecond
 * resolution, 3 significant digits (0.1 % relative error at any value), mergeable.
 * Every percentile in the lab's outputs comes from here.
 */
import { build, type Histogram } from 'hdr-histogram-js';

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

export class LatencyHistogram {
  private readonly h: Histogram = build({ numberOfSignificantValueDigits: 3, bitBucketSize: 'packed' });

  /** Records one latency in milliseconds; negative or non-finite values are ignored. */
  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    this.h.recordValue(Math.round(ms * US_PER_MS));
  }

  recordAll(values: Iterable<number>): this {
    for (const v of values) this.record(v);
    return this;
  }

  add(other: LatencyHistogram): this {
    this.h.add(other.h);
    return this;
  }

  get count(): number {
    return this.h.totalCount;
  }

  /**
   * The value at a percentile, never above the largest sample: HDR reports the top of a
   * value's bucket, which can exceed the exact max (a p99.9 of 46.78 ms over a max of 46.76).
   */
  percentile(p: number): number {
    return Math.min(this.h.getValueAtPercentile(p), this.h.maxValue) / US_PER_MS;
  }

  ladder(): Ladder | null {
    if (this.h.totalCount === 0) return null;
    return {
      count: this.h.totalCount,
      min: this.h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : this.h.minNonZeroValue / US_PER_MS,
      mean: this.h.mean / US_PER_MS,
      p50: this.percentile(50),
      p75: this.percentile(75),
      p90: this.percentile(90),
      p95: this.percentile(95),
      p99: this.percentile(99),
      'p99.9': this.percentile(99.9),
      max: this.h.maxValue / US_PER_MS,
    };
  }

  /** Points of the cumulative distribution, for plots: `buckets` evenly spaced percentiles. */
  cdf(buckets = 200): { ms: number; percentile: number }[] {
    if (this.h.totalCount === 0) return [];
    const out: { ms: number; percentile: number }[] = [];
    for (let i = 0; i <= buckets; i++) {
      const p = Math.min(100, (100 * i) / buckets);
      out.push({ ms: this.percentile(p), percentile: p });
    }
    return out;
  }

  destroy(): void {
    this.h.destroy();
  }
}

export function ladderOf(values: Iterable<number>): Ladder | null {
  const h = new LatencyHistogram().recordAll(values);
  const l = h.ladder();
  h.destroy();
  return l;
}

/**
 * Values (ms) at many percentiles of one set of samples, with LatencyHistogram's precision
 * (µs, 3 significant digits, highest equivalent value) but plain 32-bit counts: a packed
 * histogram walks its counts ~25x slower per percentile, and a distribution plot asks for a
 * hundred of them. Returns [] when no sample is usable.
 */
export function valuesAtPercentiles(samplesMs: Iterable<number>, percentiles: readonly number[]): number[] {
  const h = build({ numberOfSignificantValueDigits: 3 });
  try {
    for (const ms of samplesMs) {
      if (Number.isFinite(ms) && ms >= 0) h.recordValue(Math.round(ms * US_PER_MS));
    }
    if (h.totalCount === 0) return [];
    return percentiles.map((p) => Math.min(h.getValueAtPercentile(p), h.maxValue) / US_PER_MS);
  } finally {
    h.destroy();
  }
}

/**
 * One set of samples kept in bounded memory: an HDR histogram (µs, 3 significant digits,
 * plain 32-bit counts) plus the exact count, min, max and sum. What every percentile in
 * summary.json, report.json and the `--logs` report comes from, so they agree.
 */
export class RunningDistribution {
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
}
