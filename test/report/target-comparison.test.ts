/**
 * A run of two targets: the fixture's DynamoDB run plus a small QLDB run written here with
 * known values, so the target comparison, the targets' notices and the requests per call
 * can be checked by hand (HDR percentiles within 0.1 %).
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baselineTarget, targetNotice } from '../../core/lab-functions';
import type { TimingLine } from '../../core/timing.mjs';
import { TARGET_REFERENCE } from '../../report/article-figures';
import { compareTargets } from '../../report/build/compare';
import { buildFromLogFile, buildFromResultsDir } from '../../report/build-report';
import { plotSpecs, TARGET_PLOT_ID } from '../../report/plots';
import type { GroupReport, LabReport, TargetComparison } from '../../report/report-model';
import { writeReportFiles } from '../../report/write-report';
import type { LabRow } from '../../runs/summary-schema';
import { copyFixtureResults, labRow, tempDir } from './report-fixture';

const within = (actual: number | null | undefined, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? Number.NaN) - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);
};

interface QldbCall {
  readonly clientMs: number;
  readonly dbMs: number;
  readonly dbRequests: number;
  readonly newConnection: boolean;
}

interface QldbPhase {
  readonly keepAlive: 'on' | 'off';
  readonly phase: 'create' | 'get';
  readonly calls: number;
  readonly call: (i: number) => QldbCall;
  /** REPORT Duration = dbMs + this */
  readonly overheadMs: number;
}

/**
 * QLDB sends 3 commands for a warm get (start transaction, execute, commit), 4 for a create,
 * one more when the driver opens a session: the first call of each phase. No create with
 * keep-alive off: that slot has DynamoDB alone, so the comparison leaves it out.
 */
const QLDB_PHASES: readonly QldbPhase[] = [
  {
    keepAlive: 'on',
    phase: 'create',
    calls: 10,
    // dbMs 30..39: p50 34; DynamoDB's create on is 13.0 -> 2.6x
    call: (i) => ({ clientMs: 50 + i, dbMs: 30 + i, dbRequests: i === 0 ? 5 : 4, newConnection: i === 0 }),
    overheadMs: 1,
  },
  {
    keepAlive: 'off',
    phase: 'get',
    calls: 20,
    // dbMs 60, 62, ..., 98: p50 78, p99 98; DynamoDB's get off is 34.9 -> 2.2x
    call: (i) => ({
      clientMs: 100 + 2 * i,
      dbMs: 60 + 2 * i,
      dbRequests: i < 2 ? 4 : 3,
      newConnection: true,
    }),
    overheadMs: 2,
  },
  {
    keepAlive: 'on',
    phase: 'get',
    calls: 20,
    // dbMs 20..39: p50 29, p99 39; DynamoDB's get on is 7.55 -> 3.8x
    call: (i) => ({ clientMs: 40 + i, dbMs: 20 + i, dbRequests: i === 0 ? 4 : 3, newConnection: i === 0 }),
    overheadMs: 1,
  },
];

/** Adds the QLDB phases to a copy of the fixture run: summary rows, timings and REPORT lines. */
function addQldbRun(dir: string): void {
  const summaryPath = join(dir, 'summary.json');
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as { runs: LabRow[] };
  const timings: TimingLine[] = [];
  const reports: string[] = [];
  let request = 0;
  for (const p of QLDB_PHASES) {
    summary.runs.push(
      labRow({
        target: 'qldb',
        keepAlive: p.keepAlive,
        phase: p.phase,
        requests: p.calls,
        throughputPerSec: 10,
      }),
    );
    for (let i = 0; i < p.calls; i++) {
      const c = p.call(i);
      timings.push({
        at: 1_795_334_900_000 + request * 100,
        target: 'qldb',
        variant: p.keepAlive,
        phase: p.phase,
        status: p.phase === 'create' ? 201 : 200,
        clientMs: c.clientMs,
        govId: `fixture-qldb-${request}`,
        timing: {
          dbMs: c.dbMs,
          newConnection: c.newConnection,
          dbRequests: c.dbRequests,
          coldStart: i === 0,
          initType: 'on-demand',
        },
      });
      request += 1;
      const duration = c.dbMs + p.overheadMs;
      const id = `10000000-0000-4000-8000-${String(request).padStart(12, '0')}`;
      reports.push(
        `[qldb-${p.phase}-keepalive-${p.keepAlive}] REPORT RequestId: ${id}\tDuration: ${duration.toFixed(2)} ms\t` +
          `Billed Duration: ${Math.ceil(duration)} ms\tMemory Size: 512 MB\tMax Memory Used: 90 MB\t`,
      );
    }
  }
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  // The fixture's last timing line is cut short on purpose: start on a line of our own.
  appendFileSync(join(dir, 'timings.jsonl'), `\n${timings.map((t) => JSON.stringify(t)).join('\n')}\n`);
  appendFileSync(join(dir, 'lambda-logs.log'), `${reports.join('\n')}\n`);
}

const QLDB_NOTICE = targetNotice('qldb') ?? '';

let report: LabReport;
let dynamodbOnly: LabReport;

const group = (target: string, keepAlive: string, phase: string): GroupReport => {
  const g = report.groups.find((x) => x.target === target && x.keepAlive === keepAlive && x.phase === phase);
  if (!g) throw new Error(`no group ${target} ${keepAlive} ${phase}`);
  return g;
};
const comparison = (phase: string, keepAlive: string): TargetComparison => {
  const c = report.targetComparison.find((x) => x.phase === phase && x.keepAlive === keepAlive);
  if (!c) throw new Error(`no comparison ${phase} ${keepAlive}`);
  return c;
};

beforeAll(async () => {
  const single = copyFixtureResults();
  dynamodbOnly = await buildFromResultsDir(single, { tuningDirs: [] });
  const dir = copyFixtureResults();
  addQldbRun(dir);
  report = await buildFromResultsDir(dir, { tuningDirs: [] });
});

describe('requests per database call', () => {
  it('gives every group the p50 and max of dbRequests', () => {
    expect(report.groups.map((g) => [g.id, g.dbRequests])).toEqual([
      ['dynamodb-create-keepalive-off', { p50: 1, max: 1 }],
      ['dynamodb-create-keepalive-on', { p50: 1, max: 1 }],
      ['dynamodb-get-keepalive-off', { p50: 1, max: 1 }],
      ['dynamodb-get-keepalive-on', { p50: 1, max: 1 }],
      ['qldb-create-keepalive-on', { p50: 4, max: 5 }],
      ['qldb-get-keepalive-off', { p50: 3, max: 4 }],
      ['qldb-get-keepalive-on', { p50: 3, max: 4 }],
    ]);
  });

  it('is null where no handler timing says it (a file of REPORT lines)', async () => {
    const r = await buildFromLogFile(join(copyFixtureResults(), 'lambda-logs.log'), { tuningDirs: [] });
    expect(r.groups.map((g) => [g.id, g.dbRequests])).toEqual([
      ['dynamodb-create-keepalive-off', null],
      ['dynamodb-create-keepalive-on', null],
      ['dynamodb-get-keepalive-off', null],
      ['dynamodb-get-keepalive-on', null],
    ]);
  });
});

describe('target comparison', () => {
  it('is empty for a run of one target', () => {
    expect(dynamodbOnly.targetComparison).toEqual([]);
  });

  it('has one entry per phase and keep-alive variant that more than one target ran', () => {
    expect(report.targetComparison.map((c) => [c.phase, c.keepAlive, c.rows.map((r) => r.label)])).toEqual([
      ['create', 'on', ['DynamoDB', 'QLDB']],
      ['get', 'off', ['DynamoDB', 'QLDB']],
      ['get', 'on', ['DynamoDB', 'QLDB']],
    ]);
  });

  it('gives each target its p50 and p99 at every layer, requests per call and the article’s figure', () => {
    const [dynamodb, qldb] = comparison('get', 'on').rows;
    expect(dynamodb).toMatchObject({
      target: 'dynamodb',
      dbRequestsP50: 1,
      dbRatioToBaseline: 1,
      article: 'single-digit ms',
    });
    within(dynamodb.clientMs?.p50, 14.9);
    within(dynamodb.dbMs?.p50, 7.55);
    within(dynamodb.dbMs?.p99, 30);
    within(dynamodb.functionMs?.p50, 8.55);
    expect(qldb).toMatchObject({ target: 'qldb', label: 'QLDB', dbRequestsP50: 3, article: '~40 ms' });
    within(qldb.clientMs?.p50, 49);
    within(qldb.clientMs?.p99, 59);
    within(qldb.functionMs?.p50, 30);
    within(qldb.functionMs?.p99, 40);
    within(qldb.dbMs?.p50, 29);
    within(qldb.dbMs?.p99, 39);
    // The same p50s the ladders show, divided
    const ladderP50 = (g: GroupReport) =>
      g.layers.find((l) => l.layer === 'database')?.ladder.p50 ?? Number.NaN;
    expect(qldb.dbRatioToBaseline).toBe(
      ladderP50(group('qldb', 'on', 'get')) / ladderP50(group('dynamodb', 'on', 'get')),
    );
    expect(qldb.dbRatioToBaseline).toBeCloseTo(29 / 7.55, 2);
  });

  it('divides by DynamoDB’s p50 of the same phase and variant', () => {
    const qldb = (phase: string, keepAlive: string) =>
      comparison(phase, keepAlive).rows.find((r) => r.target === 'qldb');
    expect(qldb('get', 'off')?.dbRatioToBaseline).toBeCloseTo(78 / 34.9, 2);
    expect(qldb('get', 'off')?.dbRequestsP50).toBe(3);
    expect(qldb('create', 'on')?.dbRatioToBaseline).toBeCloseTo(34 / 13, 2);
    expect(qldb('create', 'on')?.dbRequestsP50).toBe(4);
  });
});

describe('the baseline comes from the registry', () => {
  it('is the registry’s baseline (DynamoDB) when it ran, else the first target that ran in registry order', () => {
    expect(baselineTarget(['qldb', 'dynamodb'])).toBe('dynamodb');
    expect(baselineTarget(['dsql', 'redis'])).toBe('redis');
    expect(baselineTarget(['elsewhere', 'dsql'])).toBe('dsql');
    expect(baselineTarget([])).toBeUndefined();
  });

  it('a run without DynamoDB divides by the first target that ran, and the table says which', () => {
    // The fixture's DynamoDB groups as if another target had run them: QLDB comes first in the registry.
    const groups = report.groups.map((g) => (g.target === 'dynamodb' ? { ...g, target: 'dsql' } : g));
    const c = compareTargets(groups).find((x) => x.phase === 'get' && x.keepAlive === 'on');
    expect(c?.baseline).toBe('qldb');
    expect(c?.rows.find((r) => r.target === 'qldb')?.dbRatioToBaseline).toBe(1);
    expect(c?.rows.find((r) => r.target === 'dsql')?.dbRatioToBaseline).toBeCloseTo(7.55 / 29, 2);
    expect(comparison('get', 'on').baseline).toBe('dynamodb');
  });
});

describe('notices', () => {
  it('carries each target’s notice once when the target is in the run', () => {
    expect(QLDB_NOTICE).toMatch(/^QLDB: emulated locally \(service shut down 2025-07-31\)/);
    expect(report.notices).toEqual([QLDB_NOTICE]);
    expect(dynamodbOnly.notices).toEqual([]);
  });
});

describe('rendered', () => {
  let md: string;
  let html: string;
  let json: LabReport;

  beforeAll(async () => {
    const { files } = await writeReportFiles(report, join(tempDir('report-targets'), 'out'));
    md = readFileSync(files.markdown, 'utf8');
    html = readFileSync(files.html, 'utf8');
    json = JSON.parse(readFileSync(files.json, 'utf8')) as LabReport;
  });

  const count = (text: string, part: string) => text.split(part).length - 1;

  it('report.json carries the comparison, the notices and dbRequests', () => {
    expect(json.notices).toEqual([QLDB_NOTICE]);
    expect(json.targetComparison).toEqual(report.targetComparison);
    expect(json.targetComparison[2].rows[1]).toMatchObject({
      label: 'QLDB',
      dbRequestsP50: 3,
      article: '~40 ms',
    });
    expect(json.groups.find((g) => g.id === 'qldb-create-keepalive-on')?.dbRequests).toEqual({
      p50: 4,
      max: 5,
    });
  });

  it('report.md: the notice once at the top, the comparison table, requests beside the ladders', () => {
    expect(count(md, QLDB_NOTICE)).toBe(1);
    // Near the top: before the overview's first line of text
    expect(md.indexOf(`> **${QLDB_NOTICE}**`)).toBeLessThan(md.indexOf('Input: '));
    expect(md).toContain('## Target comparison');
    expect(md).toContain(`For reference, ${TARGET_REFERENCE.source}.`);
    expect(md).toContain(
      '| Target | Client p50 (ms) | Client p99 | Function p50 (ms) | Function p99 | DB p50 (ms) | DB p99 | DB requests/call p50 | DB p50 vs DynamoDB | Article |',
    );
    const section = md.slice(md.indexOf('## Target comparison'), md.indexOf('## Percentile ladders'));
    const rows = section.split('\n').filter((l) => /^\| (DynamoDB|QLDB) \|/.test(l));
    // ratio, requests and the article's figure, exactly; the ms cells are checked above
    expect(rows.map((l) => l.split(' | ').slice(-3).join(' | '))).toEqual([
      '1 | baseline | single-digit ms |',
      '4 | QLDB 2.6x DynamoDB | ~40 ms |',
      '1 | baseline | single-digit ms |',
      '3 | QLDB 2.2x DynamoDB | ~40 ms |',
      '1 | baseline | single-digit ms |',
      '3 | QLDB 3.8x DynamoDB | ~40 ms |',
    ]);
    // One whole row: HDR reads 49 ms as 49.02 (a bucket's top, within 0.1 %)
    expect(section).toContain(
      '| QLDB | 49.02 | 59.00 | 30.02 | 40.00 | 29.01 | 39.00 | 3 | QLDB 3.8x DynamoDB | ~40 ms |',
    );
    expect(section).toContain('### get, keep-alive on');
    expect(section).not.toContain('### create, keep-alive off');
    // The ladders: dbRequests p50 / max on the database row, nothing on the others
    expect(md).toMatch(
      /\| on \| database \(handler dbMs\) \| 20 \|( [^|]+ \|){7} 3 \/ 4 \| handler timing dbMs \|/,
    );
    expect(md).toMatch(
      /\| on \| client \(Artillery\) \| 20 \|( [^|]+ \|){7} {2}\| timings.jsonl clientMs \|/,
    );
    // The overview: requests per call p50 and max
    expect(md).toMatch(/\| qldb create, keep-alive on \| 10 \| 0 \|( [^|]+ \|){7} 4 \| 5 \|/);
  });

  it('report.html: the notice near the top, the table and the bar chart', () => {
    expect(count(html, 'QLDB: emulated locally')).toBe(1);
    expect(html.indexOf('<p class="notice">QLDB: emulated locally')).toBeLessThan(html.indexOf('<p>Input: '));
    expect(html).toContain('<section id="targets">');
    expect(html).toContain('<td>QLDB 3.8x DynamoDB</td>');
    expect(html).toContain(`<svg id="plot-${TARGET_PLOT_ID}"`);
    // in page order: before the ladders' plots
    expect(plotSpecs(report)[0].id).toBe(TARGET_PLOT_ID);
  });

  it('a run of one target has no comparison section and no notice', async () => {
    const { files } = await writeReportFiles(dynamodbOnly, join(tempDir('report-one-target'), 'out'));
    const one = readFileSync(files.markdown, 'utf8');
    expect(one).not.toContain('## Target comparison');
    expect(one).not.toContain('QLDB');
    expect(plotSpecs(dynamodbOnly).map((p) => p.id)).not.toContain(TARGET_PLOT_ID);
  });
});
