import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { buildFromResultsDir, ReportInputError } from '../../report/build-report';
import { runReportCli } from '../../report/cli';
import type { GroupReport, LabReport, Layer } from '../../report/report-model';
import { writeReport } from '../../report/write-report';
import { copyFixtureResults, streams, tempDir } from './report-fixture';

/** HDR keeps 3 significant digits: a percentile reads at most 0.1 % (and 1 µs) above the sample. */
const within = (actual: number | null | undefined, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual ?? Number.NaN) - expected)).toBeLessThanOrEqual(expected * 0.001 + 0.001);
};

const NOW = new Date('2026-11-22T08:00:00.000Z');

let inDir: string;
let report: LabReport;

const group = (keepAlive: string, phase: string): GroupReport => {
  const g = report.groups.find((x) => x.keepAlive === keepAlive && x.phase === phase);
  if (!g) throw new Error(`no group ${keepAlive} ${phase}`);
  return g;
};
const ladder = (keepAlive: string, phase: string, layer: Layer) => {
  const l = group(keepAlive, phase).layers.find((x) => x.layer === layer);
  if (!l) throw new Error(`no ${layer} layer for ${keepAlive} ${phase}`);
  return l;
};

beforeAll(async () => {
  inDir = copyFixtureResults();
  report = await buildFromResultsDir(inDir, { tuningDirs: [join(inDir, 'tuning')], now: NOW });
});

describe('report of a results folder', () => {
  it('has one group per target x keep-alive x phase, pairs next to each other', () => {
    expect(report.mode).toBe('results');
    expect(report.groups.map((g) => g.id)).toEqual([
      'dynamodb-create-keepalive-off',
      'dynamodb-create-keepalive-on',
      'dynamodb-get-keepalive-off',
      'dynamodb-get-keepalive-on',
    ]);
    expect(group('on', 'get')).toMatchObject({
      requests: 100,
      errors: 0,
      label: 'dynamodb get, keep-alive on',
    });
  });

  it('gives the client ladder from timings.jsonl clientMs (sub-ms) within HDR precision', () => {
    // get, keep-alive on: 10.0, 10.1, ..., 19.9 ms; the k-th percentile is sample ceil(k)
    const on = ladder('on', 'get', 'client');
    expect(on.source).toBe('timings.jsonl clientMs');
    expect(on.ladder.count).toBe(100);
    within(on.ladder.p50, 14.9);
    within(on.ladder.p75, 17.4);
    within(on.ladder.p90, 18.9);
    within(on.ladder.p95, 19.4);
    within(on.ladder.p99, 19.8);
    within(on.ladder['p99.9'], 19.9);
    expect(on.ladder.max).toBe(19.9);
    expect(on.ladder.min).toBe(10);
    // get, keep-alive off: 40.0, 40.2, ..., 59.8 ms
    const off = ladder('off', 'get', 'client');
    within(off.ladder.p50, 49.8);
    within(off.ladder.p99, 59.6);
    expect(off.ladder.max).toBe(59.8);
    // create, keep-alive off: 60, 61, ..., 79 ms (20 samples)
    const create = ladder('off', 'create', 'client');
    within(create.ladder.p50, 69);
    within(create.ladder.p75, 74);
    within(create.ladder.p90, 77);
    within(create.ladder.p95, 78);
    within(create.ladder.p99, 79);
  });

  it('gives the database and function ladders from dbMs and REPORT Duration', () => {
    // get, keep-alive on: 98 reused calls at 5.10..9.95 ms and two new connections at 30 and 31 ms
    const db = ladder('on', 'get', 'database');
    expect(db.ladder.count).toBe(100);
    within(db.ladder.p50, 7.55);
    within(db.ladder.p95, 9.8);
    within(db.ladder.p99, 30);
    within(db.ladder['p99.9'], 31);
    expect(db.ladder.max).toBe(31);
    // Duration = dbMs + 1 ms; the malformed REPORT line is not among them
    const fn = ladder('on', 'get', 'function');
    expect(fn.ladder.count).toBe(100);
    within(fn.ladder.p50, 8.55);
    within(fn.ladder.p99, 31);
    expect(fn.ladder.max).toBe(32);
    within(ladder('off', 'get', 'database').ladder.p50, 34.9);
    within(ladder('off', 'get', 'function').ladder.p50, 36.9);
    // every percentile lies between the exact min and max
    for (const g of report.groups) {
      for (const l of g.layers) {
        for (const p of ['p50', 'p75', 'p90', 'p95', 'p99', 'p99.9'] as const) {
          expect(l.ladder[p]).toBeGreaterThanOrEqual(l.ladder.min);
          expect(l.ladder[p]).toBeLessThanOrEqual(l.ladder.max);
        }
      }
    }
  });

  it('compares keep-alive off/on at every layer beside the articles’ 3.3x', () => {
    const get = report.keepAlive.find((c) => c.phase === 'get');
    expect(get?.layers.map((l) => l.layer)).toEqual(['client', 'function', 'database']);
    const db = get?.layers.find((l) => l.layer === 'database');
    expect(db?.ratioP50).toBeCloseTo(34.9 / 7.55, 2);
    expect(get?.layers[0].ratioP50).toBeCloseTo(49.8 / 14.9, 2);
    expect(report.keepAliveReference).toMatchObject({ offMs: 33, onMs: 10, ratio: 3.3 });
  });

  it('counts cold starts, provisioned-concurrency inits and cold vs warm duration', () => {
    const on = group('on', 'get').coldStarts;
    expect(on).toMatchObject({
      invocations: 100,
      onDemandColdStarts: 0,
      provisionedInits: 1,
      failedInits: 0,
      handlerColdStarts: 1,
      coldStartsByInitType: { 'provisioned-concurrency': 1 },
      init: { count: 1, p50: 210.5, p95: 210.5, max: 210.5 },
      cold: null,
    });
    const off = group('off', 'get').coldStarts;
    expect(off).toMatchObject({
      onDemandColdStarts: 1,
      provisionedInits: 0,
      coldStartsByInitType: { 'on-demand': 1 },
      init: { count: 1, p50: 150, max: 150 },
      cold: { count: 1, p50: 32, max: 32 },
    });
    expect(off.warm?.count).toBe(99);
    within(off.warm?.p50, 37);
    const fn = report.functions.find((f) => f.name === 'dynamodb-get-keepalive-on');
    expect(fn).toMatchObject({ nameFrom: 'function', provisionedInits: 1, init: { count: 1 } });
  });

  it('splits database time by new vs reused connection', () => {
    const c = group('on', 'get').connections;
    expect(c).toMatchObject({ calls: 100, newConnections: 2, newConnectionShare: 0.02 });
    within(c?.newConnection?.ladder.p50, 30);
    expect(c?.newConnection?.ladder.max).toBe(31);
    // 5.10, 5.15, ..., 9.95: the 49th of 98
    within(c?.reused?.ladder.p50, 7.5);
    expect(group('off', 'get').connections).toMatchObject({ newConnectionShare: 1, reused: null });
  });

  it('follows throughput and errors over Artillery’s periods', () => {
    expect(group('off', 'get').timeline.map((p) => p.offsetS)).toEqual([0, 10]);
    const on = group('on', 'get').timeline;
    expect(on.map((p) => [p.offsetS, p.requests, p.errors])).toEqual([
      [30, 11, 1],
      [40, 4, 4],
    ]);
    expect(on[0].throughputPerSec).toBeGreaterThan(0);
    expect(group('on', 'create').timeline).toEqual([]);
  });

  it('shows the Power Tuning output with its per-memory table', () => {
    expect(report.tuning).toHaveLength(1);
    expect(report.tuning[0]).toMatchObject({
      function: 'dynamodb-get',
      powerMb: 512,
      durationMs: 8.25,
      strategy: 'balanced',
      visualization: 'https://lambda-power-tuning.show/#gAAAAQACAAQ=;AAAA;BBBB',
    });
    expect(report.tuning[0].memory.map((m) => m.memoryMb)).toEqual([128, 256, 512, 1024]);
  });

  it('reads Power Tuning results the run wrote (<in>/tuning), never results/tuning of the working folder', async () => {
    const dir = copyFixtureResults();
    const tuneFile = readdirSync(join(dir, 'tuning'))[0];
    // Another tune (the cloud's, another run's) in the working folder's results/tuning.
    const cwd = tempDir('report-cwd');
    mkdirSync(join(cwd, 'results', 'tuning'), { recursive: true });
    const foreign = JSON.parse(readFileSync(join(dir, 'tuning', tuneFile), 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(
      join(cwd, 'results', 'tuning', 'redis-get-2026-11-23T00-00-00Z.json'),
      JSON.stringify({ ...foreign, function: 'redis-get' }),
    );
    const before = process.cwd();
    process.chdir(cwd);
    try {
      const own = await buildFromResultsDir(dir);
      expect(own.tuning.map((t) => t.function)).toEqual(['dynamodb-get']);
      rmSync(join(dir, 'tuning'), { recursive: true });
      const none = await buildFromResultsDir(dir);
      expect(none.tuning).toEqual([]);
    } finally {
      process.chdir(before);
    }
  });

  it('counts malformed lines instead of failing', () => {
    expect(report.malformed.count).toBe(2);
    expect(report.malformed.examples.map((m) => [m.file, m.reason])).toEqual([
      ['timings.jsonl', 'not JSON'],
      ['lambda-logs.log', 'missing or unreadable Billed Duration, Memory Size, Max Memory Used'],
    ]);
  });

  it('falls back to Artillery’s summaries when timings carry no client time', async () => {
    const dir = copyFixtureResults();
    const timings = readFileSync(join(dir, 'timings.jsonl'), 'utf8').replace(
      /"clientMs":[\d.]+/g,
      '"clientMs":null',
    );
    writeFileSync(join(dir, 'timings.jsonl'), timings);
    const r = await buildFromResultsDir(dir, { tuningDirs: [] });
    const client = r.groups
      .find((g) => g.id === 'dynamodb-get-keepalive-off')
      ?.layers.find((l) => l.layer === 'client');
    expect(client?.source).toMatch(/Artillery/);
    expect(client?.ladder).toMatchObject({ count: 15, p50: 60, p99: 80, 'p99.9': 80, max: 80 });
    // no Artillery file and no client time: no client layer at all
    expect(r.groups.find((g) => g.id === 'dynamodb-create-keepalive-on')?.layers.map((l) => l.layer)).toEqual(
      ['function', 'database'],
    );
  });
});

describe('writeReport', () => {
  it('writes report.html, report.md and report.json for npm run load to call', async () => {
    const out = join(tempDir('report-out'), 'out');
    const { files, report: written } = await writeReport({
      inDir,
      outDir: out,
      tuningDirs: [join(inDir, 'tuning')],
    });
    expect(files).toEqual({
      html: join(out, 'report.html'),
      markdown: join(out, 'report.md'),
      json: join(out, 'report.json'),
    });
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as LabReport;
    expect(json.groups).toHaveLength(4);
    expect(json.functions.map((f) => f.name)).toEqual(written.functions.map((f) => f.name));
    // plot points stay out of the JSON; the ladders carry the numbers
    expect(readFileSync(files.json, 'utf8')).not.toContain('"cdf"');
    const md = readFileSync(files.markdown, 'utf8');
    expect(md).toContain('Malformed lines: 2 input line(s) could not be read');
    expect(md).toContain('| dynamodb get | database (handler dbMs) |');
    expect(md).toContain('33 -> 10 ms (3.3x)');
    const html = readFileSync(files.html, 'utf8');
    for (const id of [
      'cdf-dynamodb-create',
      'cdf-dynamodb-get',
      'keep-alive-ratio',
      'cold-starts',
      'connection-reuse',
      'over-time',
      'tuning-dynamodb-get-1',
    ]) {
      expect(html).toContain(`<svg id="plot-${id}"`);
    }
    // self-contained: no script, no stylesheet or font link, nothing fetched
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
  });
});

describe('the run header', () => {
  it("names the network profile with each target's round trip and service time", async () => {
    const dir = copyFixtureResults();
    const summaryPath = join(dir, 'summary.json');
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as { lab: Record<string, unknown> };
    summary.lab = {
      ...summary.lab,
      profile: 'in-region',
      seed: 1,
      network: {
        dynamodb: { rttMs: 1, serviceTime: { p50Ms: 3.2, p99Ms: 17 } },
        dsql: { rttMs: 1, serviceTime: null },
      },
    };
    writeFileSync(summaryPath, JSON.stringify(summary));
    const out = join(tempDir('report-profile'), 'out');
    const { files } = await writeReport({ inDir: dir, outDir: out, tuningDirs: [] });
    const md = readFileSync(files.markdown, 'utf8');
    expect(md).toContain(
      "Network profile in-region (seed 1): DynamoDB round trip 1 ms, service time p50 3.2 / p99 17 ms (seeded log-normal); Aurora DSQL round trip 1 ms, service time the local engine's own.",
    );
    expect(readFileSync(files.html, 'utf8')).toContain('Network profile in-region (seed 1)');
    // The run without a profile (the fixture: an older run) says nothing about one.
    expect(readFileSync(join(inDir, 'summary.json'), 'utf8')).not.toContain('"profile"');
  });
});

describe('bad input', () => {
  const run = async (args: string[]) => {
    const io = streams();
    const out = join(tempDir('report-bad'), 'out');
    const code = await runReportCli([...args, '--out', out], { ...io, tuningDirs: [] });
    return { code, stderr: io.stderr(), stdout: io.stdout(), wrote: existsSync(out) };
  };

  it.each([
    [
      'a missing --in folder',
      () => ['--in', '/nonexistent/results'],
      /--in \/nonexistent\/results: no such results folder/,
    ],
    [
      // With Artillery's reports beside it, a missing summary.json is rebuilt from them instead.
      'a folder without summary.json or Artillery reports',
      () => {
        const dir = copyFixtureResults();
        rmSync(join(dir, 'summary.json'));
        for (const f of readdirSync(dir)) if (/^artillery-.*\.json$/.test(f)) rmSync(join(dir, f));
        return ['--in', dir];
      },
      /summary.json not found and no artillery-\*\.json beside it/,
    ],
    [
      'an unreadable summary.json',
      () => {
        const dir = copyFixtureResults();
        writeFileSync(join(dir, 'summary.json'), '{"runs": [');
        return ['--in', dir];
      },
      /summary .*summary.json is not valid JSON/,
    ],
    [
      'a summary from before versions (no version field)',
      () => {
        const dir = copyFixtureResults();
        const { version: _, ...older } = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
        writeFileSync(join(dir, 'summary.json'), JSON.stringify(older));
        return ['--in', dir];
      },
      /summary\.json has no version \(written before summary\.json had one\); this lab reads version 1: rerun the load \(npm run load\)/,
    ],
    [
      'a summary of another version',
      () => {
        const dir = copyFixtureResults();
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
        writeFileSync(join(dir, 'summary.json'), JSON.stringify({ ...summary, version: 7 }));
        return ['--in', dir];
      },
      /summary\.json is version 7; this lab reads version 1: rerun the load/,
    ],
    [
      'a summary of this version without runs',
      () => {
        const dir = copyFixtureResults();
        writeFileSync(
          join(dir, 'summary.json'),
          '{"version": 1, "generatedAt": "x", "lab": {"target": "local"}, "comparison": null}',
        );
        return ['--in', dir];
      },
      /summary\.json does not fit version 1: runs: /,
    ],
    [
      'a row whose field has the wrong type',
      () => {
        const dir = copyFixtureResults();
        const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
        summary.runs[1].dbMs = { p50: '12' };
        writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
        return ['--in', dir];
      },
      /summary\.json does not fit version 1: runs\.1\.dbMs\.p50: /,
    ],
    [
      'an unreadable Artillery report',
      () => {
        const dir = copyFixtureResults();
        writeFileSync(join(dir, 'artillery-dynamodb-keepalive-on-get.json'), 'not json');
        return ['--in', dir];
      },
      /Artillery report .* is not valid JSON/,
    ],
    [
      'a bad --since',
      () => ['--from-cloudwatch', '--since', 'yesterday', '--region', 'eu-west-1'],
      /--since must be a duration/,
    ],
    ['no input', () => [], /give exactly one input/],
    ['two inputs', () => ['--in', '/tmp', '--logs', '/tmp/x.log'], /give exactly one input/],
    ['an unknown option', () => ['--in', '/tmp', '--colour'], /Unknown option '--colour'/],
    ['a missing option value', () => ['--from-cloudwatch', '--since', '-5m'], /argument is ambiguous/],
  ])('%s: one error line, exit 2, nothing written', async (_what, args, message) => {
    const r = await run(args());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(r.wrote).toBe(false);
  });

  it('throws ReportInputError from the builder', async () => {
    await expect(buildFromResultsDir('/nonexistent/results')).rejects.toBeInstanceOf(ReportInputError);
  });

  it('exits 2 from the real command line', () => {
    const out = join(tempDir('report-cli'), 'out');
    const r = spawnSync(
      process.execPath,
      [
        join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs'),
        'report/cli.ts',
        '--in',
        '/nonexistent/results',
        '--out',
        out,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 20_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('report: --in /nonexistent/results: no such results folder');
    expect(existsSync(out)).toBe(false);
  });
});
