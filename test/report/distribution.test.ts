import { describe, expect, it } from 'vitest';
import { distributionOf } from '../../report/report-model';
import { LatencyHistogram, valuesAtPercentiles } from '../../runs/latency-histogram';

describe('distributions for the report', () => {
  it('answers every percentile exactly as LatencyHistogram does', () => {
    // A skewed, deterministic sample: most calls fast, a long tail.
    const samples = Array.from(
      { length: 2000 },
      (_, i) => 3 + ((i * 7919) % 1000) / 100 + (i % 97 === 0 ? 400 : 0),
    );
    const percentiles = [0, 1, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100];
    const h = new LatencyHistogram().recordAll(samples);
    expect(valuesAtPercentiles(samples, percentiles)).toEqual(percentiles.map((p) => h.percentile(p)));
    h.destroy();
    expect(valuesAtPercentiles([-1, Number.NaN], [50])).toEqual([]);
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
