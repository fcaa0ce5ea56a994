/**
 * The timing block as CloudWatch metrics, in Embedded Metric Format through Powertools
 * Metrics: one JSON log line per invocation that CloudWatch turns into metrics (for
 * dashboards) and that Logs Insights and the report read back as fields.
 * Cost, measured by `npm run bench`: ~5 KB zipped and a few ms of init; microseconds per call.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { reachedDatabase } from '../../core/timing.mjs';
import type { Timing } from './timing-meter';

export const METRICS_NAMESPACE = 'LatencyLab';

const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'latency-lab' });

export function emitTiming(fn: string, status: number, timing: Timing): void {
  metrics.addDimension('function', fn);
  // A 400 never reached the database; a 0 ms sample would drag the dashboard down.
  if (reachedDatabase(status, timing)) {
    metrics.addMetric('dbMs', MetricUnit.Milliseconds, timing.dbMs);
    metrics.addMetric('dbRequests', MetricUnit.Count, timing.dbRequests);
  }
  metrics.addMetric('newConnection', MetricUnit.Count, timing.newConnection ? 1 : 0);
  metrics.addMetric('coldStart', MetricUnit.Count, timing.coldStart ? 1 : 0);
  metrics.addMetadata('lab', 'timing');
  metrics.addMetadata('status', String(status));
  metrics.addMetadata('initType', timing.initType);
  metrics.publishStoredMetrics();
}
