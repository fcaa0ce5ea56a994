/**
 * The report's statistics: a distribution (HDR ladder and CDF points), a duration summary and an
 * init summary, each from an HDR histogram (runs/latency-histogram.ts) or the raw samples.
 */
import { LatencyHistogram } from '../../runs/latency-histogram';
import type { Distribution, DurationSummary, InitSummary } from '../report-model';

/** Percentiles the distribution plots use: every 1 % and the tail up to 99.99 %. */
const CDF_PERCENTILES = [...Array.from({ length: 100 }, (_, i) => i), 99.5, 99.9, 99.99, 100];

/**
 * Percentiles from an HDR histogram (LatencyHistogram, clamped into [min, max]); count,
 * min, mean and max exact from the samples.
 */
export function distributionFrom(samples: LatencyHistogram): Distribution | null {
  const ladder = samples.ladder();
  if (ladder === null) return null;
  const at = samples.valuesAt(CDF_PERCENTILES);
  const cdf = CDF_PERCENTILES.map((p, i) => ({
    ms: p === 0 ? ladder.min : p === 100 ? ladder.max : at[i],
    percentile: p,
  }));
  return { ladder, cdf };
}

export function distributionOf(values: readonly number[] | LatencyHistogram): Distribution | null {
  return distributionFrom(
    values instanceof LatencyHistogram ? values : new LatencyHistogram().recordAll(values),
  );
}

export function durationSummary(values: readonly number[] | LatencyHistogram): DurationSummary | null {
  const d = distributionOf(values);
  return d
    ? { count: d.ladder.count, avg: d.ladder.mean, p50: d.ladder.p50, p95: d.ladder.p95, max: d.ladder.max }
    : null;
}

export function initSummary(values: readonly number[] | LatencyHistogram): InitSummary {
  const d = distributionOf(values);
  return d
    ? { count: d.ladder.count, p50: d.ladder.p50, p95: d.ladder.p95, max: d.ladder.max }
    : { count: 0, p50: null, p95: null, max: null };
}
