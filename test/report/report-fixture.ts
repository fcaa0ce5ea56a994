/** Copies the fixture results folder to a temporary one (tests write next to it, and `*.log` is git-ignored). */
import { cpSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../core/paths';
import type { LabRow, RunCost } from '../../runs/summary-schema';

export const FIXTURE_RESULTS = join(PROJECT_ROOT, 'test', 'report', 'fixtures', 'load-run');
/** The log lines (START, handler output, REPORT) quoted by the provisioned-concurrency article. */
export const ARTICLE_LOG = join(PROJECT_ROOT, 'test', 'report', 'fixtures', 'article-report-lines.txt');

/** SnapStart (Restore Duration) and X-Ray fields flattened onto REPORT lines, tabs and spaces. */
export const SNAPSTART_XRAY_LOG = join(
  PROJECT_ROOT,
  'test',
  'report',
  'fixtures',
  'snapstart-xray-report-lines.txt',
);

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

export function copyFixtureResults(): string {
  const dir = join(tempDir('report-results'), 'results');
  cpSync(FIXTURE_RESULTS, dir, { recursive: true });
  renameSync(join(dir, 'lambda-logs.log.txt'), join(dir, 'lambda-logs.log'));
  return dir;
}

/** Collects what the CLI writes to stdout and stderr. */
export function streams() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: { write: (s: string) => out.push(s) },
    err: { write: (s: string) => err.push(s) },
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}

/** A summary.json row with every field the schema requires; the test names only what it checks. */
export function labRow(fields: Pick<LabRow, 'target' | 'keepAlive' | 'phase'> & Partial<LabRow>): LabRow {
  return {
    mode: 'open',
    parallel: null,
    ratePerS: 10,
    requests: 0,
    errors: 0,
    throughputPerSec: 0,
    latencyMs: null,
    dbMs: null,
    dbRequests: null,
    dbRoundTrips: null,
    environments: null,
    maxInFlight: 0,
    newConnectionShare: null,
    coldStarts: 0,
    initMsP50: null,
    ...fields,
  };
}

/** A row's cost block with these $ per million requests (the units behind them left out). */
export function costBlock(perMillion: RunCost['perMillion'], extra: Partial<RunCost> = {}): RunCost {
  return {
    prices: 'us-east-1.json (us-east-1, read 2026-11-25)',
    requests: 100,
    invocations: 100,
    units: [],
    components: [],
    perMillion,
    unpriced: [],
    perRequestUsd: null,
    databaseBasis: 'measured',
    ...extra,
  };
}
