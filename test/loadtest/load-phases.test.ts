/**
 * npm run load's phases with the Artillery runner injected: one phase leaves no Artillery
 * JSON, and the run still records the others, writes summary.json and the report, and
 * exits non-zero.
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimingLine } from '../../core/timing.mjs';
import type { RunArtilleryOptions, RunArtilleryResult } from '../../loadtest/artillery-runner';
import { loadExitCode, runLoadPhases, writeLoadSummary } from '../../loadtest/load-phases';
import { formatSummaryTable } from '../../loadtest/summary-table';
import { coldStartBlock, coldStartModel } from '../../local/host/cold-start-model';
import { writeReport } from '../../report/write-report';

const ARTILLERY = new URL('./fixtures/artillery-get-report.json', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lab-load-phases-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes what a phase leaves (the fixture JSON, five timing lines), except for `failing`. */
function stubRunner(failing: { variant: string; phase: string }) {
  const calls: RunArtilleryOptions[] = [];
  const run = async (o: RunArtilleryOptions): Promise<RunArtilleryResult> => {
    calls.push(o);
    const phase = o.operation ?? 'get';
    const variant = String(o.variables?.labKeepAlive);
    if (variant === failing.variant && phase === failing.phase) {
      return { exitCode: 1, wallMs: 10, outputTail: ['Error: connect ECONNREFUSED 127.0.0.1:9', ''] };
    }
    copyFileSync(ARTILLERY, o.outJson);
    for (let i = 0; i < 5; i++) {
      const line: TimingLine = {
        at: 1_795_334_734_000 + i,
        target: 'dynamodb',
        variant,
        phase,
        status: 200,
        clientMs: 5 + i,
        govId: `g-${i}`,
        timing: {
          dbMs: 2 + i,
          newConnection: i === 0,
          dbRequests: 1,
          coldStart: i === 0,
          initType: 'on-demand',
        },
      };
      appendFileSync(o.env.LAB_TIMINGS_FILE, `${JSON.stringify(line)}\n`);
    }
    return { exitCode: 0, wallMs: 10, outputTail: [] };
  };
  return { run, calls };
}

describe('npm run load with a failed phase', () => {
  it('records the phase as failed, keeps the others, writes summary.json and the report, exits 1', async () => {
    const runner = stubRunner({ variant: 'off', phase: 'get' });
    const errors: string[] = [];
    const { rows, failed, interrupted } = await runLoadPhases({
      outDir: dir,
      url: 'http://127.0.0.1:9',
      basePath: (t, v) => `/${t}/keepalive-${v}`,
      env: {},
      targets: ['dynamodb'],
      variants: ['on', 'off'],
      durationS: 1,
      ratePerS: 1,
      runArtillery: runner.run,
      log: () => {},
      logError: (l) => errors.push(l),
    });
    expect(interrupted).toBe(false);
    // every phase ran, the failed one did not stop the loop
    expect(runner.calls.map((c) => [c.variables?.labKeepAlive, c.operation, c.labTarget])).toEqual([
      ['on', 'create', 'dynamodb'],
      ['on', 'get', 'dynamodb'],
      ['off', 'create', 'dynamodb'],
      ['off', 'get', 'dynamodb'],
    ]);
    expect(rows.map((r) => `${r.keepAlive} ${r.phase}`)).toEqual(['on create', 'on get', 'off create']);
    expect(rows[0]).toMatchObject({ requests: 15, newConnectionShare: 0.2, coldStarts: 1 });
    expect(failed).toEqual([
      {
        target: 'dynamodb',
        keepAlive: 'off',
        phase: 'get',
        reason: expect.stringMatching(
          /^no Artillery JSON \(.*artillery-dynamodb-keepalive-off-get\.json\); Artillery exited with 1: Error: connect ECONNREFUSED 127\.0\.0\.1:9$/,
        ),
      },
    ]);
    expect(errors.join('\n')).toContain('dynamodb keep-alive off get failed: no Artillery JSON');
    expect(loadExitCode(rows, failed)).toBe(1);
    expect(loadExitCode(rows, [])).toBe(1); // the fixture has 5 failed requests per phase
    expect(
      loadExitCode(
        rows.map((r) => ({ ...r, errors: 0 })),
        [],
      ),
    ).toBe(0);

    writeLoadSummary(dir, { target: 'local' }, rows, failed);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.runs).toHaveLength(3);
    expect(summary.failedPhases).toEqual(failed);

    const { files } = await writeReport({ inDir: dir, outDir: dir, tuningDirs: [] });
    expect(existsSync(files.html)).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(report.warnings).toContainEqual(
      expect.stringMatching(
        /^phase dynamodb keep-alive off get failed and has no results: no Artillery JSON/,
      ),
    );
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(
      'phase dynamodb keep-alive off get failed and has no results',
    );
  }, 30_000);

  it('records a runner that throws as a failed phase too', async () => {
    const out = mkdtempSync(join(dir, 'throws-'));
    const { rows, failed } = await runLoadPhases({
      outDir: out,
      url: 'http://127.0.0.1:9',
      basePath: (t) => `/${t}`,
      env: {},
      targets: ['dynamodb'],
      variants: ['on'],
      durationS: 1,
      ratePerS: 1,
      runArtillery: async () => {
        throw new Error('scenario not found');
      },
      log: () => {},
      logError: () => {},
    });
    expect(rows).toEqual([]);
    expect(failed.map((f) => [f.phase, f.reason])).toEqual([
      ['create', 'Artillery did not run: scenario not found'],
      ['get', 'Artillery did not run: scenario not found'],
    ]);
  });
});

describe('npm run load comparing memory sizes (--memory 128,1769)', () => {
  it('runs each target x keep-alive at each size after setting it, and the rows, files, table and report keep them apart', async () => {
    const out = mkdtempSync(join(dir, 'memory-'));
    const calls: RunArtilleryOptions[] = [];
    const set: number[] = [];
    const logLines: string[] = [];
    const { rows, failed } = await runLoadPhases({
      outDir: out,
      url: 'http://127.0.0.1:9',
      basePath: (t, v) => `/${t}/keepalive-${v}`,
      env: {},
      targets: ['dynamodb'],
      variants: ['off'],
      durationS: 1,
      ratePerS: 1,
      memories: [128, 1769],
      setMemory: async (mb) => {
        set.push(mb);
      },
      phaseExtras: (_t, _v, _p, memoryMb) => ({
        memoryMb,
        cpu: { mechanism: 'cgroup-v1', vcpus: (memoryMb ?? 0) / 1769 },
        functionMs: { p50: memoryMb === 128 ? 40 : 10, p99: 50 },
      }),
      runArtillery: async (o) => {
        calls.push(o);
        const memoryMb = Number(o.variables?.labMemoryMb);
        // What the lab would have logged and timed at this size: slower at 128 MB.
        const dbMs = memoryMb === 128 ? 40 : 10;
        copyFileSync(ARTILLERY, o.outJson);
        for (let i = 0; i < 3; i++) {
          const line: TimingLine = {
            at: 1_795_334_734_000 + i,
            target: 'dynamodb',
            variant: 'off',
            phase: o.operation ?? 'get',
            memoryMb,
            status: 200,
            clientMs: dbMs + 1,
            govId: `g-${i}`,
            timing: { dbMs, newConnection: true, dbRequests: 1, coldStart: false, initType: 'on-demand' },
          };
          appendFileSync(o.env.LAB_TIMINGS_FILE, `${JSON.stringify(line)}\n`);
          logLines.push(
            `[dynamodb-${o.operation}-keepalive-off] REPORT RequestId: 00000000-0000-0000-0000-00000000000${i}\tDuration: ${dbMs + 2}.00 ms\tBilled Duration: ${dbMs + 2} ms\tMemory Size: ${memoryMb} MB\tMax Memory Used: 70 MB\t`,
          );
        }
        return { exitCode: 0, wallMs: 10, outputTail: [] };
      },
      log: () => {},
      logError: () => {},
    });
    expect(failed).toEqual([]);
    expect(set).toEqual([128, 1769]);
    expect(calls.map((c) => [c.variables?.labMemoryMb, c.operation])).toEqual([
      [128, 'create'],
      [128, 'get'],
      [1769, 'create'],
      [1769, 'get'],
    ]);
    // Each size has its own files: the create phase's GovIds feed the get phase of the same size.
    expect(calls.map((c) => c.outJson.split('/').at(-1))).toEqual([
      'artillery-dynamodb-keepalive-off-create-128mb.json',
      'artillery-dynamodb-keepalive-off-get-128mb.json',
      'artillery-dynamodb-keepalive-off-create-1769mb.json',
      'artillery-dynamodb-keepalive-off-get-1769mb.json',
    ]);
    expect(calls[1].payload).toBe(join(out, 'govids-dynamodb-keepalive-off-128mb.csv'));
    // The timings of one size never leak into the other's row.
    expect(rows.map((r) => [r.phase, r.memoryMb, r.dbMs?.p50, r.functionMs?.p50])).toEqual([
      ['create', 128, 40, 40],
      ['get', 128, 40, 40],
      ['create', 1769, 10, 10],
      ['get', 1769, 10, 10],
    ]);
    const table = formatSummaryTable(rows);
    expect(table.split('\n')[0]).toMatch(/^target\s+keep-alive\s+memory\s+phase\b.*\bfn p50\b/);
    // Targets by label, as the comparison and the report name them.
    expect(table.split('\n')[2]).toMatch(/^DynamoDB\s+off\s+128 MB/);
    expect(table).toContain('128 MB 0.07 vCPU');
    expect(table).toContain('1769 MB 1.00 vCPU');

    writeFileSync(join(out, 'lambda-logs.log'), `${logLines.join('\n')}\n`);
    writeLoadSummary(
      out,
      {
        target: 'local',
        memoryModel: 'Memory is CPU: cgroup-v1',
        memory: { modeled: true },
        ...coldStartBlock([coldStartModel('nodejs24.x', 'arm64')]),
      },
      rows,
      [],
    );
    await writeReport({ inDir: out, outDir: out, tuningDirs: [] });
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    // The lab block names the cold-start model that produced the Init Durations, with its sources.
    expect(report.lab.coldStart.figures[0]).toMatchObject({ runtime: 'nodejs24.x', publishedInitMs: 123.8 });
    expect(report.lab.coldStart.figures[0].sources[0]).toMatch(/lambda-perf/);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('nodejs24.x arm64 123.8 ms');
    const groups = report.groups as {
      id: string;
      memoryMb: number;
      layers: { layer: string; ladder: { p50: number } }[];
    }[];
    const p50 = (id: string, layer: string) =>
      groups.find((g) => g.id === id)?.layers.find((l) => l.layer === layer)?.ladder.p50;
    expect(groups.map((g) => g.id)).toEqual([
      'dynamodb-create-keepalive-off-128mb',
      'dynamodb-create-keepalive-off-1769mb',
      'dynamodb-get-keepalive-off-128mb',
      'dynamodb-get-keepalive-off-1769mb',
    ]);
    expect(p50('dynamodb-get-keepalive-off-128mb', 'database')).toBeCloseTo(40, 0);
    expect(p50('dynamodb-get-keepalive-off-1769mb', 'database')).toBeCloseTo(10, 0);
    expect(p50('dynamodb-get-keepalive-off-128mb', 'function')).toBeCloseTo(42, 0);
    expect(p50('dynamodb-get-keepalive-off-1769mb', 'function')).toBeCloseTo(12, 0);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('Memory is CPU: cgroup-v1');
  }, 30_000);

  it('says in the report when memory or cold starts were not modeled', async () => {
    const out = mkdtempSync(join(dir, 'not-modeled-'));
    copyFileSync(ARTILLERY, join(out, 'artillery-dynamodb-keepalive-on-get.json'));
    writeLoadSummary(
      out,
      {
        target: 'local',
        memoryModel: "Memory not modeled: cgroups are Linux's; this is darwin",
        memory: { modeled: false, mechanism: 'none' },
        ...coldStartBlock(undefined),
      },
      [],
      [],
    );
    await writeReport({ inDir: out, outDir: out, tuningDirs: [] });
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain("Memory not modeled: cgroups are Linux's; this is darwin (memory not modeled)");
    expect(md).toContain('cold start: Lambda’s sandbox and runtime start not modeled (turned off)');
  }, 30_000);
});

describe('seeding (the histogram article: 1000 objects inserted first, then picked at random)', () => {
  it('seeds each target x keep-alive once, uncounted, and points get, overwrite and update at the seeded GovIds', async () => {
    const out = mkdtempSync(join(tmpdir(), 'lab-load-seed-'));
    const runner = stubRunner({ variant: 'none', phase: 'none' });
    const seeded = async (o: RunArtilleryOptions): Promise<RunArtilleryResult> => {
      // The seeding run: one create per arrival, its 201s' GovIds recorded as the processor does.
      if (o.arrivalCount !== undefined) {
        runner.calls.push(o);
        for (let i = 0; i < o.arrivalCount; i++) appendFileSync(o.env.LAB_GOVIDS_FILE, `seed-${i}\n`);
        return { exitCode: 0, wallMs: 10, outputTail: [] };
      }
      return runner.run(o);
    };
    const logs: string[] = [];
    const { rows, failed } = await runLoadPhases({
      outDir: out,
      url: 'http://127.0.0.1:9',
      basePath: (t) => `/${t}`,
      env: {},
      targets: ['dynamodb', 'redis'],
      variants: ['on'],
      operations: ['create', 'get', 'update'],
      durationS: 1,
      ratePerS: 1,
      parallel: 2,
      seedRecords: 30,
      pickSeed: 7,
      runArtillery: seeded,
      log: (l) => logs.push(l),
      logError: (l) => logs.push(l),
    });
    expect(failed).toEqual([]);
    // Only the counted phases are rows: seeding is setup.
    expect(rows.map((r) => `${r.target} ${r.phase}`)).toEqual([
      'dynamodb create',
      'dynamodb get',
      'dynamodb update',
      'redis create',
      'redis get',
      'redis update',
    ]);
    const seeds = runner.calls.filter((c) => c.arrivalCount !== undefined);
    expect(seeds.map((c) => [c.labTarget, c.operation, c.arrivalCount])).toEqual([
      ['dynamodb', 'create', 30],
      ['redis', 'create', 30],
    ]);
    for (const s of seeds) expect(s.env.LAB_TIMINGS_FILE).toBe(join(out, 'seed-timings.jsonl'));
    const counted = runner.calls.filter((c) => c.arrivalCount === undefined);
    for (const c of counted) {
      expect(c.env.LAB_TIMINGS_FILE, c.operation).toBe(join(out, 'timings.jsonl'));
      if (c.operation === 'create') {
        // The insert phase records its own GovIds and picks nothing.
        expect(c.env.LAB_GOVIDS_FILE).toBe(join(out, `govids-${c.labTarget}-keepalive-on.csv`));
        expect(c.pickSeed).toBeUndefined();
      } else {
        const file = join(out, `seeded-${c.labTarget}-keepalive-on.csv`);
        // The reads' data travels as payload files only: the seeded GovIds and the pick seed.
        expect([c.env.LAB_GOVIDS_FILE, c.payload, c.pickSeed]).toEqual([undefined, file, 7]);
        expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(30);
      }
    }
    expect(logs).toContain('  dynamodb keep-alive on: 30 Persons seeded');
    rmSync(out, { recursive: true, force: true });
  });
});

describe('npm run load with bursts and per-target operations', () => {
  it('runs only the phases each target and variant has, and only the bursty ones in bursts', async () => {
    const runner = stubRunner({ variant: 'none', phase: 'none' });
    const out = mkdtempSync(join(dir, 'bursts-'));
    const logs: string[] = [];
    const { failed } = await runLoadPhases({
      outDir: out,
      url: 'http://127.0.0.1:9',
      basePath: (t, v) => `/${t}/keepalive-${v}`,
      env: {},
      targets: ['dynamodb', 'qldb'],
      variants: ['on', 'off'],
      operations: ['create', 'view', 'top10'],
      durationS: 7,
      ratePerS: 1,
      bursts: { activeS: 3, pauseS: 12, operations: ['top10'] },
      runArtillery: runner.run,
      log: (l) => logs.push(l),
      logError: () => {},
    });
    expect(failed).toEqual([]);
    // view and top10: DynamoDB with keep-alive on only (core/lab-functions.ts); QLDB: create alone.
    expect(runner.calls.map((c) => `${c.labTarget} ${c.variables?.labKeepAlive} ${c.operation}`)).toEqual([
      'dynamodb on create',
      'dynamodb on view',
      'dynamodb on top10',
      'dynamodb off create',
      'qldb on create',
      'qldb off create',
    ]);
    expect(logs).toContain('qldb keep-alive on has no view, top10 function: those phases are not run');
    // The top 10 alone runs in bursts, and says how long its pauses make it.
    expect(runner.calls.map((c) => c.bursts?.pauseS ?? null)).toEqual([null, null, 12, null, null, null]);
    expect(logs).toContain('  in 3 s bursts with 12 s pauses: 31 s in all');
  });
});

describe('targets at once', () => {
  /** A runner that holds each phase a while, records how many ran at once, and leaves its results. */
  function overlappingRunner() {
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const run = async (o: RunArtilleryOptions): Promise<RunArtilleryResult> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      order.push(`${o.labTarget} ${o.operation}`);
      await new Promise((resolve) => setTimeout(resolve, 40));
      copyFileSync(ARTILLERY, o.outJson);
      const line: TimingLine = {
        at: 1_795_334_734_000,
        target: String(o.labTarget),
        variant: 'on',
        phase: o.operation ?? 'get',
        status: 200,
        clientMs: 5,
        govId: 'g-1',
        timing: { dbMs: 2, newConnection: false, dbRequests: 1, coldStart: false, initType: 'on-demand' },
      };
      appendFileSync(o.env.LAB_TIMINGS_FILE, `${JSON.stringify(line)}\n`);
      inFlight -= 1;
      return { exitCode: 0, wallMs: 40, outputTail: [] };
    };
    return { run, order, most: () => most };
  }

  const options = (out: string, run: ReturnType<typeof overlappingRunner>['run']) => ({
    outDir: out,
    url: 'http://127.0.0.1:9',
    basePath: (t: string, v: string) => `/${t}/keepalive-${v}`,
    env: {},
    targets: ['redis', 'dynamodb'],
    variants: ['on'],
    durationS: 1,
    ratePerS: 1,
    runArtillery: run,
    log: () => {},
    logError: () => {},
  });

  it('runs each target’s phases in order, the targets side by side, and keeps the rows in the targets’ order', async () => {
    const runner = overlappingRunner();
    const { rows, failed } = await runLoadPhases({
      ...options(mkdtempSync(join(dir, 'at-once-')), runner.run),
      targetsAtOnce: true,
    });
    expect(failed).toEqual([]);
    expect(runner.most()).toBe(2);
    const of = (t: string) => runner.order.filter((x) => x.startsWith(t));
    expect(of('redis')).toEqual(['redis create', 'redis get']);
    expect(of('dynamodb')).toEqual(['dynamodb create', 'dynamodb get']);
    expect(rows.map((r) => `${r.target} ${r.phase}`)).toEqual([
      'redis create',
      'redis get',
      'dynamodb create',
      'dynamodb get',
    ]);
  });

  it('runs one phase at a time without it, and refuses several memories at once', async () => {
    const runner = overlappingRunner();
    await runLoadPhases(options(mkdtempSync(join(dir, 'one-by-one-')), runner.run));
    expect(runner.most()).toBe(1);
    await expect(
      runLoadPhases({
        ...options(mkdtempSync(join(dir, 'memories-')), runner.run),
        targetsAtOnce: true,
        memories: [128, 256],
        setMemory: async () => {},
      }),
    ).rejects.toThrow(/one memory/);
  });
});
