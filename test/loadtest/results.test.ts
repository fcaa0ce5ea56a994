/**
 * results.ts on fixtures captured from a real run (fixtures/): a 3 s get phase at 5/s against
 * the fake API whose payload held 10 GovIds that exist and 5 that do not (10 x 200, 5 x 404),
 * and the timings JSONL of that run's create (10 lines) and get (15 lines) phases.
 */
import { describe, expect, it } from 'vitest';
import {
  type ArtilleryReport,
  filterTimings,
  maxInFlight,
  parseArtilleryReport,
  parseTimingLines,
  readArtilleryReport,
  readTimingLines,
  summarizeRun,
  summarizeTimings,
  type TimingLine,
  timeline,
  toLabRow,
} from '../../runs/results';

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const report = readArtilleryReport(fixture('artillery-get-report.json'));
const lines = readTimingLines(fixture('timings.jsonl'));

/** Nearest-rank percentile, what HDR answers up to its bucket width. */
function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

function withCounters(counters: Record<string, number>): ArtilleryReport {
  return parseArtilleryReport({ aggregate: { counters, period: 0 }, intermediate: [] });
}

describe('parseArtilleryReport', () => {
  it('reads the aggregate and both intermediate periods of a real report', () => {
    expect(report.intermediate).toHaveLength(2);
    expect(report.aggregate.counters['http.requests']).toBe(15);
    expect(report.aggregate.summaries['http.response_time']?.count).toBe(15);
    // Intermediate periods are strings in the file; they come out as numbers.
    expect(report.intermediate.every((m) => typeof m.period === 'number')).toBe(true);
  });

  it('names what does not fit', () => {
    expect(() => parseArtilleryReport([])).toThrow('must be a JSON object');
    expect(() => parseArtilleryReport({ intermediate: [] })).toThrow('aggregate must be an object');
    expect(() => parseArtilleryReport({ aggregate: { period: 'x' } })).toThrow('aggregate.period');
    expect(() =>
      parseArtilleryReport({ aggregate: { period: 1, summaries: { 'http.response_time': { min: 1 } } } }),
    ).toThrow('aggregate.summaries.http.response_time.max must be a number');
  });
});

describe('summarizeRun', () => {
  it('counts requests, non-2xx as errors, throughput and client latency', () => {
    const s = summarizeRun(report);
    expect(s.requests).toBe(15);
    expect(s.responses).toBe(15);
    expect(s.codes).toEqual({ '200': 10, '404': 5 });
    expect(s.errors).toBe(5);
    // 15 arrivals at 5/s: 14 gaps of 0.2 s.
    expect(s.windowS).toBeCloseTo(2.806, 3);
    expect(s.throughputPerSec).toBeCloseTo(14 / 2.806, 3);
    expect(s.latencyMs).toEqual({ p50: 1, p95: 2, p99: 2, max: 2 });
  });

  it('counts a failed VU once, whether seen as an error event or as vusers.failed', () => {
    const refused = withCounters({
      'http.requests': 4,
      'http.codes.201': 1,
      'http.codes.503': 1,
      'errors.ECONNREFUSED': 2,
      'vusers.failed': 2,
    });
    expect(summarizeRun(refused).errors).toBe(3);
    // A failure that emitted no error event still counts.
    expect(summarizeRun(withCounters({ 'http.requests': 1, 'vusers.failed': 1 })).errors).toBe(1);
  });

  it('has no latency and no throughput without responses', () => {
    const s = summarizeRun(withCounters({}));
    expect(s).toMatchObject({ requests: 0, errors: 0, throughputPerSec: 0, latencyMs: null });
  });
});

describe('timeline', () => {
  it('gives each 10 s bucket its counts, and a rate only where it overlaps the run by 1 s or more', () => {
    const points = timeline(report);
    expect(points.map((p) => p.startMs)).toEqual([1795334730000, 1795334740000]);
    expect(points.reduce((n, p) => n + p.responses, 0)).toBe(15);
    expect(points.reduce((n, p) => n + p.errors, 0)).toBe(5);
    const [first, last] = points;
    // The run began at :37.865 and ended at :40.671.
    expect(first.throughputPerSec).toBeCloseTo(first.responses / 2.135, 2);
    expect(last.throughputPerSec).toBeNull();
  });
});

describe('timings', () => {
  it('parses every line of a real timings file with its labels', () => {
    expect(lines).toHaveLength(25);
    expect(filterTimings(lines, { phase: 'create' })).toHaveLength(10);
    expect(filterTimings(lines, { phase: 'get', variant: 'off', target: 'dynamodb' })).toHaveLength(15);
    expect(filterTimings(lines, { variant: 'on' })).toHaveLength(0);
  });

  it('summarizes dbMs with HDR to a microsecond, connection reuse and cold starts', () => {
    const s = summarizeTimings(lines);
    const db = lines.flatMap((l) => (l.timing ? [l.timing.dbMs] : []));
    expect(s.responses).toBe(25);
    expect(s.withTiming).toBe(25);
    expect(s.dbMs?.p50).toBeCloseTo(exactPercentile(db, 50), 2);
    expect(s.dbMs?.p99).toBeCloseTo(exactPercentile(db, 99), 2);
    expect(s.newConnections).toBe(1);
    expect(s.newConnectionShare).toBeCloseTo(1 / 25);
    expect(s.coldStarts).toBe(1);
    expect(s.initTypes).toEqual({ 'on-demand': 25 });
  });

  it('keeps sub-millisecond precision', () => {
    const line = (dbMs: number): TimingLine => ({
      at: 0,
      target: 'dynamodb',
      variant: 'on',
      phase: 'get',
      status: 200,
      clientMs: 1,
      govId: 'a',
      timing: { dbMs, newConnection: false, dbRequests: 1, coldStart: false, initType: 'on-demand' },
    });
    const s = summarizeTimings([0.25, 0.5, 0.75, 1.125].map(line));
    expect(s.dbMs?.p50).toBe(0.5);
    expect(s.dbMs?.p99).toBe(1.125);
  });

  it('has no dbMs and no share when no response carried a timing block', () => {
    const [first] = lines;
    const s = summarizeTimings([{ ...first, status: 502, timing: null }]);
    expect(s).toMatchObject({
      responses: 1,
      withTiming: 0,
      dbMs: null,
      newConnectionShare: null,
      coldStarts: 0,
    });
  });

  it('names the line that does not fit', () => {
    expect(() => parseTimingLines('{"at":1}\n')).toThrow('timings line 1 is not a timing line');
    expect(() => parseTimingLines('\n{oops\n')).toThrow('timings line 2');
  });
});

describe('concurrency, environments and round trips', () => {
  const line = (
    at: number,
    clientMs: number | null,
    environment?: string,
    dbRoundTrips?: number,
  ): TimingLine => ({
    at,
    target: 'dsql',
    variant: 'on',
    phase: 'get',
    status: 200,
    clientMs,
    govId: 'x',
    timing: {
      dbMs: 1,
      newConnection: false,
      dbRequests: 5,
      ...(dbRoundTrips === undefined ? {} : { dbRoundTrips }),
      coldStart: false,
      initType: 'on-demand',
      ...(environment === undefined ? {} : { environment }),
    },
  });

  it('counts the most requests in flight at once; back-to-back requests are not concurrent', () => {
    // [0,10] [10,20] back to back; [5,15] and [6,16] overlap the first and each other.
    expect(maxInFlight([line(10, 10), line(20, 10)])).toBe(1);
    expect(maxInFlight([line(10, 10), line(20, 10), line(15, 10), line(16, 10)])).toBe(3);
    expect(maxInFlight([line(10, null)])).toBe(0);
  });

  it('counts the distinct environments and the round trips per call, absent in old timings', () => {
    const s = summarizeTimings([line(10, 5, 'env-a', 1), line(20, 5, 'env-b', 1), line(30, 5, 'env-a', 4)]);
    expect(s.environments).toBe(2);
    expect(s.dbRoundTrips).toEqual({ p50: 1, max: 4 });
    expect(s.maxInFlight).toBe(1);
    const old = summarizeTimings([line(10, 5)]);
    expect(old.environments).toBeNull();
    expect(old.dbRoundTrips).toBeNull();
  });
});

describe('toLabRow', () => {
  it("joins artillery's and the handlers' numbers with the labels and the init p50", () => {
    const gets = filterTimings(lines, { phase: 'get' });
    const row = toLabRow(
      { target: 'dynamodb', keepAlive: 'off', phase: 'get' },
      summarizeRun(report),
      summarizeTimings(gets),
      123.4,
    );
    expect(row).toMatchObject({
      target: 'dynamodb',
      keepAlive: 'off',
      phase: 'get',
      requests: 15,
      errors: 5,
      latencyMs: { p50: 1, p95: 2, p99: 2, max: 2 },
      newConnectionShare: 0,
      coldStarts: 0,
      initMsP50: 123.4,
    });
    expect(row.dbMs?.p50).toBeGreaterThan(0);
  });
});
