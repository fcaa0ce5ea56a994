import { describe, expect, it } from 'vitest';
import { distributionOf } from '../../report/build/distribution';
import { LatencyHistogram } from '../../runs/latency-histogram';

describe('distributions for the report', () => {
  it('answers a ladder, a CDF and any percentile from the same histogram', () => {
    // A skewed, deterministic sample: most calls fast, a long tail.
    const samples = Array.from(
      { length: 2000 },
      (_, i) => 3 + ((i * 7919) % 1000) / 100 + (i % 97 === 0 ? 400 : 0),
    );
    const h = new LatencyHistogram().recordAll(samples);
    const ladder = h.ladder();
    expect(h.valuesAt([50, 99, 99.9])).toEqual([ladder?.p50, ladder?.p99, ladder?.['p99.9']]);
    expect(h.cdf(4)).toEqual([0, 25, 50, 75, 100].map((p) => ({ ms: h.percentile(p), percentile: p })));
    expect(distributionOf(samples)?.ladder).toEqual(ladder);
    expect(new LatencyHistogram().recordAll([-1, Number.NaN]).valuesAt([50])).toEqual([]);
  });

  it('keeps exact count, min, mean and max, and percentiles inside them', () => {
    const d = distributionOf([1.0005, 2, 3, 1000.0001]);
    expect(d?.ladder).toMatchObject({
      count: 4,
      min: 1.0005,
      max: 1000.0001,
      mean: (1.0005 + 2 + 3 + 1000.0001) / 4,
    });
    // HDR's p99.9 is the top of its bucket, above the sample: clamped to the real max
    expect(d?.ladder['p99.9']).toBe(1000.0001);
    expect(d?.cdf[0]).toEqual({ ms: 1.0005, percentile: 0 });
    expect(d?.cdf.at(-1)).toEqual({ ms: 1000.0001, percentile: 100 });
    expect(d?.cdf.map((p) => p.percentile)).toContain(99.99);
    expect(distributionOf([])).toBeNull();
  });
});
