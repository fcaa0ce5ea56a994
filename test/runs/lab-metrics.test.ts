/**
 * The timing block as Artillery custom metrics (core/lab-metrics.mjs) and read back
 * (runs/artillery-metrics.ts): the same database filter as timings.jsonl's summary, command
 * breakdowns that survive the trip as counter names, and an in-flight peak equal to the sweep over
 * every response.
 */
import { describe, expect, it } from 'vitest';
import { breakdownKey, InFlight, parseBreakdownKey, responseMetrics } from '../../core/lab-metrics.mjs';
import { seededUniform } from '../../core/seeded-uniform.mjs';
import type { Timing, TimingLine } from '../../core/timing.mjs';
import { loadShapeFromReport, timingSummaryFromReport } from '../../runs/artillery-metrics';
import type { ArtilleryReport, ArtillerySummary } from '../../runs/artillery-reader';
import { maxInFlight, summarizeTimings } from '../../runs/results';

const timing = (t: Partial<Timing>): Timing => ({
  dbMs: 2,
  newConnection: false,
  dbRequests: 1,
  coldStart: false,
  initType: 'on-demand',
  ...t,
});

/** Folds emitted metrics as Artillery does: counters summed, histograms kept (exact here). */
function fold(emitted: ['counter' | 'histogram', string, number][]): ArtilleryReport {
  const counters: Record<string, number> = {};
  const values: Record<string, number[]> = {};
  for (const [type, name, v] of emitted) {
    if (type === 'counter') counters[name] = (counters[name] ?? 0) + v;
    else values[name] = [...(values[name] ?? []), v];
  }
  const summaries: Record<string, ArtillerySummary> = {};
  for (const [name, vs] of Object.entries(values)) {
    const s = [...vs].sort((a, b) => a - b);
    const at = (q: number) => s[Math.floor(q * (s.length - 1))];
    summaries[name] = {
      min: s[0],
      max: s.at(-1) ?? 0,
      count: s.length,
      mean: s.reduce((a, b) => a + b, 0) / s.length,
      p50: at(0.5),
      median: at(0.5),
      p75: at(0.75),
      p90: at(0.9),
      p95: at(0.95),
      p99: at(0.99),
      p999: at(0.999),
    };
  }
  return { aggregate: { counters, rates: {}, summaries, period: 0 }, intermediate: [] };
}

describe('responseMetrics and timingSummaryFromReport', () => {
  const lines: Pick<TimingLine, 'status' | 'timing'>[] = [
    { status: 201, timing: timing({ dbMs: 3.25, newConnection: true, coldStart: true, environment: 'e1' }) },
    { status: 201, timing: timing({ dbMs: 1.5, environment: 'e1', dbRoundTrips: 1 }) },
    { status: 200, timing: timing({ dbMs: 2.125, environment: 'e2', dbRoundTrips: 1 }) },
    // A 400 never reached the database: its dbMs 0 is not database time.
    { status: 400, timing: timing({ dbMs: 0, dbRequests: 0, environment: 'e2' }) },
    { status: 502, timing: null },
    {
      status: 200,
      timing: timing({
        dbMs: 9,
        dbRequests: 4,
        dbCommands: { CommitTransaction: 1, StartSession: 1, StartTransaction: 1, ExecuteStatement: 1 },
      }),
    },
    {
      status: 200,
      timing: timing({
        dbMs: 8,
        dbRequests: 3,
        dbCommands: { StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 },
      }),
    },
    {
      status: 200,
      timing: timing({
        dbMs: 7,
        dbRequests: 3,
        dbCommands: { StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 },
      }),
    },
  ];
  const report = fold(lines.flatMap((l) => responseMetrics(l.status, l.timing)));
  const fromFiles = summarizeTimings(
    lines.map((l, i) => ({
      ...l,
      at: i,
      target: 't',
      variant: 'on',
      phase: 'get',
      clientMs: null,
      govId: null,
    })),
  );
  const fromReport = timingSummaryFromReport(report);

  it('counts what summarizeTimings counts from timings.jsonl', () => {
    for (const k of [
      'responses',
      'withTiming',
      'databaseCalls',
      'newConnections',
      'newConnectionShare',
      'coldStarts',
      'environments',
      'initTypes',
      'dbRequests',
      'dbRoundTrips',
      'dbCommands',
    ] as const)
      expect(fromReport[k], k).toEqual(fromFiles[k]);
    expect(fromReport.databaseCalls).toBe(6);
    expect(fromReport.dbCommands?.breakdowns[0]).toEqual({
      commands: { StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 },
      total: 3,
      calls: 2,
    });
  });

  it('sends times in microseconds (Artillery rounds summaries to 0.1) and reads them back in ms', () => {
    expect(report.aggregate.summaries['lab.db_us']?.min).toBe(1500);
    expect(fromReport.dbMs?.p50).toBe(3.25);
  });

  it('keeps a breakdown whole in a counter name', () => {
    const commands = { EndSession: 1, StartSession: 2, FetchPage: 3 };
    expect(breakdownKey(commands)).toBe('StartSession=2,FetchPage=3,EndSession=1');
    expect(parseBreakdownKey(breakdownKey(commands))).toEqual(commands);
    expect(parseBreakdownKey('not a breakdown')).toBeUndefined();
  });

  it("reads the load's shape from the users' counters", () => {
    expect(
      loadShapeFromReport(
        fold([
          ['counter', 'lab.load.open.2.5', 1],
          ['counter', 'lab.load.open.2.5', 1],
        ]),
      ),
    ).toEqual({ mode: 'open', parallel: null, ratePerS: 2.5 });
    expect(loadShapeFromReport(fold([['counter', 'lab.load.closed', 4]]))).toEqual({
      mode: 'closed',
      parallel: 4,
      ratePerS: null,
    });
    expect(loadShapeFromReport(fold([]))).toBeUndefined();
  });
});

describe('InFlight', () => {
  it('peaks where the sweep over every response peaks, whatever order the responses end in', () => {
    const rand = seededUniform(11);
    for (let trial = 0; trial < 40; trial++) {
      // Responses as a worker sees them: processed in time order, each with its time to first byte.
      const spans: { at: number; clientMs: number }[] = [];
      let now = 1_000;
      for (let i = 0; i < 200; i++) {
        now += Math.floor(rand() * 4);
        spans.push({ at: now, clientMs: Math.floor(rand() * 40) });
      }
      const tracker = new InFlight();
      const peak = Math.max(...spans.map((s) => tracker.add(s.at, s.clientMs)));
      expect(peak).toBe(maxInFlight(spans));
    }
  });
});
