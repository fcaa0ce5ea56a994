/**
 * Each source of a results folder has its own reader, checked here on the fixture run in
 * test/report/fixtures/load-run (its distributions are in that folder's README): summary.json,
 * Artillery's JSON and the Lambda log lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseArtilleryReport,
  readArtilleryReport,
  summarizeRun,
  timeline,
} from '../../runs/artillery-reader';
import { parseLambdaLog } from '../../runs/lambda-log-parser';
import { readSummary } from '../../runs/summary-reader';
import { FIXTURE_RESULTS } from '../report/report-fixture';

describe('the summary reader', () => {
  it('reads the fixture run: its lab block and a row per target x keep-alive x phase', () => {
    const s = readSummary(join(FIXTURE_RESULTS, 'summary.json'));
    expect(s.lab).toMatchObject({ target: 'local', engine: 'dynalite', durationS: 10 });
    expect(s.runs.map((r) => `${r.keepAlive}/${r.phase}:${r.requests}`)).toEqual([
      'off/create:20',
      'off/get:100',
      'on/create:20',
      'on/get:100',
    ]);
    expect(s.failedPhases).toEqual([]);
  });

  it('names the file it cannot read', () => {
    expect(() => readSummary(join(FIXTURE_RESULTS, 'no-such-summary.json'))).toThrow(
      /^cannot read summary .*no-such-summary\.json: ENOENT/,
    );
  });
});

describe('the Artillery reader', () => {
  it("reads a phase's counts, codes, client percentiles and 10 s timeline", () => {
    const report = readArtilleryReport(join(FIXTURE_RESULTS, 'artillery-dynamodb-keepalive-on-get.json'));
    const run = summarizeRun(report);
    expect(run).toMatchObject({ requests: 15, responses: 15, codes: { '200': 10, '404': 5 }, errors: 5 });
    expect(run.latencyMs).toEqual({ p50: 1, p95: 2, p99: 2, max: 2 });
    expect(timeline(report)).toHaveLength(2);
  });

  it("caps a sketch's quantile at the exact max (Artillery's DDSketch is 1% accurate)", () => {
    const latency = {
      min: 2,
      max: 13,
      count: 40,
      mean: 5,
      p50: 4.1,
      median: 4.1,
      p75: 6,
      p90: 9,
      p95: 12.1,
      p99: 13.1,
      p999: 13.1,
    };
    const report = parseArtilleryReport({
      aggregate: {
        period: 1,
        counters: { 'http.requests': 40 },
        rates: {},
        summaries: { 'http.response_time': latency },
      },
      intermediate: [],
    });
    expect(summarizeRun(report).latencyMs).toEqual({ p50: 4.1, p95: 12.1, p99: 13, max: 13 });
  });

  it('names the field that does not fit', () => {
    expect(() => parseArtilleryReport({ aggregate: { period: 'soon' } })).toThrow(
      'aggregate.period must be a timestamp',
    );
    expect(() =>
      parseArtilleryReport({ aggregate: { period: 1, summaries: { 'http.response_time': { min: 1 } } } }),
    ).toThrow('aggregate.summaries.http.response_time.max must be a number');
  });
});

describe('the Lambda log reader', () => {
  it("reads the run's REPORT and INIT_REPORT lines and counts the malformed one", () => {
    const parsed = parseLambdaLog(readFileSync(join(FIXTURE_RESULTS, 'lambda-logs.log.txt'), 'utf8'));
    // 20 + 20 + 100 + 100 invocations; one REPORT line lacks its fields on purpose.
    expect(parsed.reports).toHaveLength(240);
    expect(parsed.malformed).toHaveLength(1);
    expect(parsed.inits).toHaveLength(1);
    expect(parsed.inits[0].initDurationMs).toBe(210.5);
    const keys = new Set(parsed.reports.map((r) => r.source));
    expect([...keys].sort()).toEqual([
      'dynamodb-create-keepalive-off',
      'dynamodb-create-keepalive-on',
      'dynamodb-get-keepalive-off',
      'dynamodb-get-keepalive-on',
    ]);
  });
});
