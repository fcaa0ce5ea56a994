import { describe, expect, it } from 'vitest';
import { LatencyHistogram, ladderOf } from '../../runs/latency-histogram';

const within = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);

describe('latency histogram', () => {
  it('gives the percentiles of a known uniform distribution within HDR precision', () => {
    // 1..10000 µs in 1 µs steps: p50 = 5 ms, p99 = 9.9 ms, p99.9 = 9.99 ms.
    const l = ladderOf(Array.from({ length: 10_000 }, (_, i) => (i + 1) / 1000));
    expect(l?.count).toBe(10_000);
    within(l?.p50 ?? 0, 5);
    within(l?.p90 ?? 0, 9);
    within(l?.p99 ?? 0, 9.9);
    within(l?.['p99.9'] ?? 0, 9.99);
    within(l?.max ?? 0, 10);
    within(l?.min ?? 0, 0.001);
    within(l?.mean ?? 0, 5.0005);
  });

  it('shows a tail that an average hides: 99 fast calls and one slow one', () => {
    const l = ladderOf([...Array(99).fill(10), 1000]);
    within(l?.p50 ?? 0, 10);
    within(l?.p99 ?? 0, 10);
    within(l?.max ?? 0, 1000);
    within(l?.mean ?? 0, 19.9);
  });

  it('merges histograms as if the values were recorded together', () => {
    const a = new LatencyHistogram().recordAll([1, 2, 3]);
    const b = new LatencyHistogram().recordAll([4, 5, 6, 7]);
    a.add(b);
    expect(a.count).toBe(7);
    within(a.percentile(50), 4);
    expect(a.cdf(4).map((p) => p.percentile)).toEqual([0, 25, 50, 75, 100]);
  });

  it('ignores negative and non-finite samples and has no ladder when empty', () => {
    const h = new LatencyHistogram().recordAll([-1, Number.NaN, Number.POSITIVE_INFINITY]);
    expect(h.count).toBe(0);
    expect(h.ladder()).toBeNull();
  });
});

describe('LatencyHistogram ladder', () => {
  it('never puts a percentile above the largest sample (HDR buckets round up)', () => {
    const l = ladderOf([1.234, 46.761, 9.5, 10.25]);
    expect(l).not.toBeNull();
    for (const k of ['p50', 'p75', 'p90', 'p95', 'p99', 'p99.9'] as const) {
      expect(l?.[k]).toBeLessThanOrEqual(l?.max ?? 0);
    }
    expect(l?.max).toBeCloseTo(46.761, 2);
  });
});
