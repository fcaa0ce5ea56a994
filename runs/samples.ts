/**
 * Which handler timings count as database samples, and what they add up to: the one
 * definition behind summary.json (`npm run load`), report.json (`npm run report`) and the
 * handlers' EMF metrics, so the same run reads the same everywhere.
 */
import { reachedDatabase } from '../core/timing.mjs';
import { LatencyHistogram } from './latency-histogram';

/** What a handler's timing block says about one call, with the response status. */
export interface TimedCall {
  readonly status: number;
  readonly dbMs?: number;
  readonly newConnection: boolean;
  /** Requests or commands the call sent (absent in timings written before it existed). */
  readonly dbRequests?: number;
  /** Round trips the call waited for (absent in timings written before it existed). */
  readonly dbRoundTrips?: number;
}

export interface DatabaseSamples {
  /** calls that reached the database */
  readonly calls: number;
  readonly newConnections: number;
  /** newConnections / calls; null without calls */
  readonly newConnectionShare: number | null;
  readonly dbMs: LatencyHistogram;
  readonly newConnectionDbMs: LatencyHistogram;
  readonly reusedDbMs: LatencyHistogram;
  /** Requests or commands per call, over the calls that report it. */
  readonly dbRequests: LatencyHistogram;
  /** Round trips per call, over the calls that report it. */
  readonly dbRoundTrips: LatencyHistogram;
}

export function databaseSamples(calls: Iterable<TimedCall>): DatabaseSamples {
  const dbMs = new LatencyHistogram();
  const newConnectionDbMs = new LatencyHistogram();
  const reusedDbMs = new LatencyHistogram();
  const dbRequests = new LatencyHistogram();
  const dbRoundTrips = new LatencyHistogram();
  let n = 0;
  let fresh = 0;
  for (const c of calls) {
    if (!reachedDatabase(c.status, c)) continue;
    const ms = c.dbMs ?? 0;
    n += 1;
    dbMs.record(ms);
    if (c.dbRequests !== undefined) dbRequests.record(c.dbRequests);
    if (c.dbRoundTrips !== undefined) dbRoundTrips.record(c.dbRoundTrips);
    if (c.newConnection) {
      fresh += 1;
      newConnectionDbMs.record(ms);
    } else reusedDbMs.record(ms);
  }
  return {
    calls: n,
    newConnections: fresh,
    newConnectionShare: n === 0 ? null : fresh / n,
    dbMs,
    newConnectionDbMs,
    reusedDbMs,
    dbRequests,
    dbRoundTrips,
  };
}

/** Requests per call, p50 and max, as summary.json and the load table print them; null without calls. */
export function dbRequestStats(
  samples: DatabaseSamples,
): { readonly p50: number; readonly max: number } | null {
  const [p50, max] = samples.dbRequests.valuesAt([50, 100]);
  return p50 === undefined || max === undefined ? null : { p50: Math.round(p50), max: Math.round(max) };
}

/** Round trips per call, p50 and max; null without calls that report them. */
export function dbRoundTripStats(
  samples: DatabaseSamples,
): { readonly p50: number; readonly max: number } | null {
  const [p50, max] = samples.dbRoundTrips.valuesAt([50, 100]);
  return p50 === undefined || max === undefined ? null : { p50: Math.round(p50), max: Math.round(max) };
}

/** dbMs p50 and p99 as summary.json and the load table print them; null without calls. */
export function dbPercentiles(
  samples: DatabaseSamples,
): { readonly p50: number; readonly p99: number } | null {
  const [p50, p99] = samples.dbMs.valuesAt([50, 99]);
  return p50 === undefined || p99 === undefined ? null : { p50, p99 };
}
