/**
 * Load from many machines, without AWS: the real Artillery against the fake lab API on 127.0.0.1.
 *  1. The same load's summary from the per-response files and from Artillery's reports alone
 *     (summary.json, timings.jsonl, lambda-logs.log and the GovIds file deleted, then
 *     `npm run report -- --in DIR`): counts equal, percentiles within the sketch's error.
 *  2. The --platform code path run here (every worker argument built, only the AWS calls left
 *     out): seeding, create, then get, each counted phase running the very script a cloud worker
 *     gets (bundled processor, payload files, variables), rows from Artillery's metrics; and
 *     Artillery's own bundler lists exactly those files and packages for the workers.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../core/paths';
import { reachedDatabase } from '../../core/timing.mjs';
import {
  artilleryArgs,
  phaseScript,
  type RunArtilleryOptions,
  runArtillery,
} from '../../loadtest/artillery-runner';
import { runLoadPhases, writeLoadSummary } from '../../loadtest/load-phases';
import { runReportCli } from '../../report/cli';
import { SKETCH_RELATIVE_ACCURACY } from '../../runs/artillery-metrics';
import { type LabRow, readTimingLines } from '../../runs/results';
import { readSummary } from '../../runs/summary-reader';
import { type FakeLabApi, startFakeLabApi } from './fake-lab-api';

const DURATION_S = 3;
const RATE = 10;
const EXPECTED = DURATION_S * RATE;
/** Artillery's sketch (1%) against the HDR histogram of timings.jsonl (0.1%), and 3-decimal rounding. */
const within = (a: number, b: number) =>
  Math.abs(a - b) <= (SKETCH_RELATIVE_ACCURACY + 0.001) * Math.max(a, b) + 0.001;

const quiet = { log: () => {}, logError: () => {} };

describe('the summary from Artillery reports alone', () => {
  let api: FakeLabApi;
  let root: string;
  let local: LabRow[];
  let rebuilt: LabRow[];
  /** Each phase's database times from timings.jsonl, sorted. */
  const dbTimes = new Map<string, number[]>();
  let reportOut = '';

  beforeAll(async () => {
    api = await startFakeLabApi({ delayMs: 3 });
    root = mkdtempSync(join(tmpdir(), 'lab-artillery-only-'));
    const localDir = join(root, 'local');
    const run = await runLoadPhases({
      outDir: localDir,
      url: api.url,
      basePath: (t, v) => `/${t}/keepalive-${v}`,
      env: { LAB_GOVID_PREFIX: 'eq-' },
      targets: ['dynamodb'],
      variants: ['on'],
      operations: ['create', 'get'],
      durationS: DURATION_S,
      ratePerS: RATE,
      runArtillery,
      ...quiet,
    });
    expect(run.failed).toEqual([]);
    writeLoadSummary(localDir, { target: 'local' }, run.rows, run.failed);
    local = readSummary(join(localDir, 'summary.json')).runs as LabRow[];
    for (const t of readTimingLines(join(localDir, 'timings.jsonl'))) {
      if (!t.timing || !reachedDatabase(t.status, t.timing)) continue;
      dbTimes.set(t.phase, [...(dbTimes.get(t.phase) ?? []), t.timing.dbMs]);
    }
    for (const v of dbTimes.values()) v.sort((a, b) => a - b);

    // What a distributed run leaves: Artillery's reports, nothing the processor wrote here.
    const dir = join(root, 'artillery-only');
    cpSync(localDir, dir, { recursive: true });
    for (const f of readdirSync(dir)) {
      if (['summary.json', 'timings.jsonl', 'lambda-logs.log'].includes(f) || /^govids-.*\.csv$/.test(f))
        rmSync(join(dir, f), { force: true });
    }
    const out: string[] = [];
    const err: string[] = [];
    const code = await runReportCli(['--in', dir], {
      out: { write: (s: string) => out.push(s) },
      err: { write: (s: string) => err.push(s) },
      tuningDirs: [],
    });
    expect(code, err.join('')).toBe(0);
    reportOut = out.join('');
    rebuilt = readSummary(join(dir, 'summary.json')).runs as LabRow[];
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('writes summary.json first, then the report', () => {
    expect(reportOut).toMatch(/^Report written to .*artillery-only: report\.html/);
    expect(reportOut).toContain("note: summary.json written from Artillery's reports (2 phases)");
    expect(rebuilt.map((r) => `${r.target} ${r.keepAlive} ${r.phase}`)).toEqual(
      local.map((r) => `${r.target} ${r.keepAlive} ${r.phase}`),
    );
    // The report keeps its database layer, from Artillery's merged sketch.
    const report = JSON.parse(readFileSync(join(root, 'artillery-only', 'report.json'), 'utf8')) as {
      groups: { phase: string; layers: { layer: string; source: string; ladder: { p50: number } }[] }[];
    };
    expect(report.groups.map((g) => g.phase)).toEqual(['create', 'get']);
    for (const g of report.groups) {
      const db = g.layers.find((l) => l.layer === 'database');
      expect(db?.source, g.phase).toContain('lab.db_us');
      const row = local.find((r) => r.phase === g.phase);
      expect(within(db?.ladder.p50 ?? 0, row?.dbMs?.p50 ?? -1), g.phase).toBe(true);
    }
  });

  it('gives the same counts per phase', () => {
    for (const [i, r] of rebuilt.entries()) {
      const l = local[i];
      expect(l.requests).toBe(EXPECTED);
      expect(r.requests, r.phase).toBe(l.requests);
      expect(r.errors).toBe(l.errors);
      expect(r.coldStarts).toBe(l.coldStarts);
      expect(r.newConnectionShare).toBe(l.newConnectionShare);
      expect(r.dbRequests).toEqual(l.dbRequests);
      expect([r.mode, r.parallel, r.ratePerS]).toEqual(['open', null, RATE]);
      // One Artillery worker on two cores sees every request; with several, the busiest one's peak.
      if (cpus().length <= 2) expect(r.maxInFlight).toBe(l.maxInFlight);
      else expect(r.maxInFlight).toBeLessThanOrEqual(l.maxInFlight);
    }
  });

  it("gives the same database percentiles, within the sketch's error", () => {
    for (const [i, r] of rebuilt.entries()) {
      const l = local[i];
      expect(l.dbMs).not.toBeNull();
      expect(r.dbMs).not.toBeNull();
      if (!l.dbMs || !r.dbMs) return;
      expect(within(r.dbMs.p50, l.dbMs.p50), `${r.phase} p50 ${r.dbMs.p50} vs ${l.dbMs.p50}`).toBe(true);
      // p99 of 30 calls: the sketch takes the value at rank q(n-1) (the 29th), HDR at ceil(qn)
      // (the 30th); against the sample at the sketch's own rank it is within its error.
      const times = dbTimes.get(r.phase) ?? [];
      expect(times).toHaveLength(EXPECTED);
      const atRank = times[Math.floor(0.99 * (times.length - 1))];
      expect(within(r.dbMs.p99, atRank), `${r.phase} p99 ${r.dbMs.p99} vs ${atRank}`).toBe(true);
      // Client latency is Artillery's own in both.
      expect(r.latencyMs).toEqual(l.latencyMs);
    }
  });
});

describe('the --platform code path, run here', () => {
  let api: FakeLabApi;
  let dir: string;
  const calls: { opts: RunArtilleryOptions; args: string[] }[] = [];
  let rows: LabRow[];

  beforeAll(async () => {
    api = await startFakeLabApi();
    // Inside the project: the bundled processor finds its npm packages as a worker's install would.
    mkdirSync(join(PROJECT_ROOT, '.cache'), { recursive: true });
    dir = mkdtempSync(join(PROJECT_ROOT, '.cache', 'lab-platform-path-'));
    const result = await runLoadPhases({
      outDir: dir,
      url: api.url,
      basePath: (t, v) => `/${t}/keepalive-${v}`,
      env: { LAB_GOVID_PREFIX: 'pf-' },
      targets: ['dynamodb'],
      variants: ['on'],
      operations: ['create', 'get'],
      durationS: DURATION_S,
      ratePerS: RATE,
      seedRecords: 12,
      pickSeed: 5,
      workers: { platform: 'aws:lambda', count: 1, region: 'eu-west-1' },
      // Everything but the AWS calls: the arguments run-lambda would get, then its script run here.
      runArtillery: async (o) => {
        calls.push({ opts: o, args: artilleryArgs(o) });
        const script = phaseScript(o);
        if (!o.workers || !script || o.operation === undefined) return runArtillery(o);
        for (const f of script.files) {
          mkdirSync(dirname(f.path), { recursive: true });
          writeFileSync(f.path, f.text);
        }
        const { workers: _remote, payload: _p, pickSeed: _s, operation, labTarget, ...here } = o;
        return runArtillery({
          ...here,
          scenario: script.path,
          variables: { labTarget, labPhase: operation, ...o.variables },
        });
      },
      ...quiet,
    });
    expect(result.failed).toEqual([]);
    rows = result.rows;
  }, 120_000);

  afterAll(async () => {
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('seeds from this machine, then hands the counted phases to the workers', () => {
    expect(calls.map((c) => [c.opts.operation, c.args[0]])).toEqual([
      ['create', 'run'],
      ['create', 'run-lambda'],
      ['get', 'run-lambda'],
    ]);
    const get = calls[2].args;
    expect(get.slice(0, 5)).toEqual(['run-lambda', '--region', 'eu-west-1', '--count', '1']);
  });

  it('gives the counted phases no local file: variables and payload files only', () => {
    for (const { opts } of calls.slice(1)) {
      expect(opts.env.LAB_TIMINGS_FILE, opts.operation).toBeUndefined();
      expect(opts.env.LAB_GOVIDS_FILE, opts.operation).toBeUndefined();
      expect(opts.variables).toMatchObject({ labKeepAlive: 'on', labRatePerS: RATE });
    }
    expect(existsSync(join(dir, 'timings.jsonl'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('govids-'))).toEqual([]);
    // The get phase's script names its data as payload files beside it, as Artillery ships them.
    const script = parse(readFileSync(calls[2].args.at(-1) ?? '', 'utf8'));
    const payload = script.config.payload as { path: string; fields: string[]; name?: string }[];
    expect(payload.map((p) => [p.path, p.fields, p.name])).toEqual([
      ['../seeded-dynamodb-keepalive-on.csv', ['govId'], undefined],
      ['../seeded-dynamodb-keepalive-on.csv', ['govId'], 'labGovIds'],
      ['pick-seed-5.csv', ['labPickSeed'], undefined],
    ]);
    // The processor travels bundled beside the script, with a package.json of its npm packages.
    const scripts = dirname(calls[2].args.at(-1) ?? '');
    expect(resolve(scripts, script.config.processor)).toBe(join(scripts, 'lab-processor.mjs'));
    expect(readFileSync(join(scripts, 'lab-processor.mjs'), 'utf8')).not.toMatch(/from ['"]\.\.?\//);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@aws-sdk/credential-provider-node',
      '@faker-js/faker',
    ]);
  });

  it('reads the seeded Persons, picked at random, all found', () => {
    const seeded = readFileSync(join(dir, 'seeded-dynamodb-keepalive-on.csv'), 'utf8').trim().split('\n');
    expect(seeded).toHaveLength(12);
    const gets = api.requests.filter((r) => r.method === 'GET');
    expect(gets).toHaveLength(EXPECTED);
    expect(gets.every((g) => g.status === 200)).toBe(true);
    const read = new Set(gets.map((g) => g.path.split('/').pop() ?? ''));
    expect([...read].every((id) => seeded.includes(id))).toBe(true);
    // Random picks, not one row per user: 30 reads of 12 Persons repeat some.
    expect(read.size).toBeLessThan(EXPECTED);
  });

  it("is what Artillery's own bundler ships to the workers, and no more", () => {
    const script = calls[2].args.at(-1) ?? '';
    // createBOM as run-lambda and run-fargate call it, in a child with the runner's preload.
    const probe = `
      const lib = ${JSON.stringify(join(PROJECT_ROOT, 'node_modules', 'artillery', 'lib'))};
      require(lib + '/artillery-global').createGlobalObject().then(() => {
        require(lib + '/platform/aws-ecs/legacy/bom.js').createBOM(${JSON.stringify(script)}, [], { scenarioPath: ${JSON.stringify(script)}, flags: {} }, (err, bom) => {
          if (err) { console.error(err.stack); process.exit(1); }
          console.log(JSON.stringify({ files: bom.files.map((f) => f.noPrefix).sort(), modules: bom.modules.sort() }));
          process.exit(0);
        });
      });`;
    const r = spawnSync(
      process.execPath,
      ['--require', join(PROJECT_ROOT, 'loadtest', 'artillery-preload.cjs'), '-e', probe],
      { cwd: dir, encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const bom = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
    const name = script.split('/').at(-1);
    expect(bom.files).toEqual(
      [
        'package.json',
        'scripts/lab-processor.mjs',
        `scripts/${name}`,
        'scripts/pick-seed-5.csv',
        'seeded-dynamodb-keepalive-on.csv',
      ].sort(),
    );
    expect(bom.modules).toEqual(['@aws-sdk/credential-provider-node', '@faker-js/faker']);
  });

  it("builds every row from Artillery's report", () => {
    expect(rows.map((r) => [r.phase, r.requests, r.errors])).toEqual([
      ['create', EXPECTED, 0],
      ['get', EXPECTED, 0],
    ]);
    for (const r of rows) {
      expect(r.dbMs?.p50, r.phase).toBeGreaterThanOrEqual(1);
      expect(r.dbMs?.p50, r.phase).toBeLessThanOrEqual(4);
      expect(r.dbRequests).toEqual({ p50: 1, max: 1 });
      expect(r.maxInFlight).toBeGreaterThanOrEqual(1);
    }
    // The fake API's first call on the base path was the seeding's: the counted phases found it warm.
    expect(rows.map((r) => r.coldStarts)).toEqual([0, 0]);
  });
});
