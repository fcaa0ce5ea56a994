/**
 * summary.json has one schema (runs/summary-schema.ts): what the writer writes validates and
 * reads back unchanged, a row that does not fit is refused before anything is written, and a
 * summary of another version is refused with one line naming the version found, the version
 * expected and what to do.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPriceFile } from '../../core/price-file';
import { writeLoadSummary } from '../../loadtest/load-phases';
import { parseLambdaLog } from '../../runs/lambda-log-parser';
import {
  filterTimings,
  readArtilleryReport,
  readTimingLines,
  summarizeAfterGap,
  summarizeRun,
  summarizeTimings,
  toLabRow,
} from '../../runs/results';
import { runCost } from '../../runs/run-cost';
import { readSummary } from '../../runs/summary-reader';
import {
  checkSummary,
  type LabRow,
  SUMMARY_VERSION,
  SummaryFormatError,
  versionMessage,
} from '../../runs/summary-schema';
import { FIXTURE_RESULTS, labRow, tempDir } from '../report/report-fixture';

/** The fixture run's keep-alive on get phase, as npm run load makes its row (cost block included). */
function fixtureRow(): LabRow {
  // The fixture's last timings line is cut short on purpose (a killed run): the row reads the whole ones.
  const whole = readFileSync(join(FIXTURE_RESULTS, 'timings.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(0, -1);
  const dir = tempDir('summary-schema-timings');
  writeFileSync(join(dir, 'timings.jsonl'), whole.join('\n'));
  const timings = filterTimings(readTimingLines(join(dir, 'timings.jsonl')), {
    target: 'dynamodb',
    variant: 'on',
    phase: 'get',
  });
  const reports = parseLambdaLog(readFileSync(join(FIXTURE_RESULTS, 'lambda-logs.log.txt'), 'utf8')).reports;
  return {
    ...toLabRow(
      { target: 'dynamodb', keepAlive: 'on', phase: 'get' },
      summarizeRun(readArtilleryReport(join(FIXTURE_RESULTS, 'artillery-dynamodb-keepalive-on-get.json'))),
      summarizeTimings(timings),
      180,
      { mode: 'closed', parallel: 4, ratePerS: null },
      summarizeAfterGap(timings, 30),
    ),
    memoryMb: 512,
    cpu: { mechanism: 'cgroup-v2', vcpus: 0.289 },
    functionMs: { p50: 6.1, p99: 9.5 },
    cost: runCost(
      { reports: reports.slice(0, timings.length), timings, architecture: 'arm64', api: 'rest' },
      loadPriceFile(),
    ),
  };
}

describe('summary.json schema', () => {
  it('validates what the writer writes and reads it back unchanged', () => {
    const dir = tempDir('summary-schema');
    const row = fixtureRow();
    expect(row.cost?.components.length).toBeGreaterThan(0);
    const failed = [{ target: 'qldb', keepAlive: 'off', phase: 'get', reason: 'no Artillery JSON' }];
    const path = writeLoadSummary(dir, { target: 'local', url: 'http://127.0.0.1:1' }, [row], failed);
    const read = readSummary(path);
    expect(read.version).toBe(SUMMARY_VERSION);
    // Through JSON and back: every field the writer set, none lost, none added.
    expect(read.runs).toEqual([JSON.parse(JSON.stringify(row))]);
    expect(read.failedPhases).toEqual(failed);
    expect(read.lab).toEqual({ target: 'local', url: 'http://127.0.0.1:1' });
  });

  it('refuses to write a row that does not fit, and writes nothing', () => {
    const dir = join(tempDir('summary-schema-bad'), 'out');
    mkdirSync(dir);
    // NaN becomes null in JSON: a p50 of null is not a latency.
    const bad = labRow({
      target: 'dynamodb',
      keepAlive: 'on',
      phase: 'get',
      dbMs: { p50: Number.NaN, p99: 1 },
    });
    expect(() => writeLoadSummary(dir, { target: 'local' }, [bad], [])).toThrow(
      /summary\.json does not fit version 1: runs\.0\.dbMs\.p50: /,
    );
    expect(existsSync(join(dir, 'summary.json'))).toBe(false);
  });

  it.each([
    ['no version field', undefined, 'has no version (written before summary.json had one)'],
    ['an older version', 0, 'is version 0'],
    ['a newer version', 2, 'is version 2'],
    ['a version that is not a number', '1', 'is version "1"'],
  ])('refuses a summary with %s in one line naming both versions and the fix', (_what, version, said) => {
    const dir = tempDir('summary-schema-version');
    const fixture = JSON.parse(readFileSync(join(FIXTURE_RESULTS, 'summary.json'), 'utf8'));
    const { version: _, ...rest } = fixture;
    const path = join(dir, 'summary.json');
    writeFileSync(path, JSON.stringify(version === undefined ? rest : { ...rest, version }));
    let error: unknown;
    try {
      readSummary(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SummaryFormatError);
    const message = (error as Error).message;
    expect(message).toBe(
      `${path} ${said}; this lab reads version 1: rerun the load (npm run load) to write it again`,
    );
    expect(message).toBe(versionMessage(path, version));
    expect(message.split('\n')).toHaveLength(1);
  });

  it('checks the version before the shape: an old summary gets the version message, not a field error', () => {
    expect(() => checkSummary({ runs: 'not an array' }, 'old/summary.json')).toThrow(
      /^old\/summary\.json has no version .* rerun the load/,
    );
    expect(() => checkSummary(null, 'x.json')).toThrow(/^x\.json has no version/);
  });
});
