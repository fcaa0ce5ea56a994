/**
 * The real artillery, through runArtillery, against a fake lab API on 127.0.0.1: a 3 s create
 * phase then a 3 s get phase at 5/s (15 requests each) of the one scenario per operation,
 * run for a target that is not the scenarios' default, and one aborted run. The wall-time
 * bounds fail if artillery's telemetry wait (~12 s per run) comes back.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ArtilleryProgress,
  type RunArtilleryResult,
  runArtillery,
} from '../../loadtest/artillery-runner';
import {
  type ArtilleryReport,
  readArtilleryReport,
  readTimingLines,
  summarizeRun,
  summarizeTimings,
  type TimingLine,
} from '../../runs/results';
import { type FakeLabApi, startFakeLabApi } from './fake-lab-api';

const DURATION_S = 3;
const RATE = 5;
const EXPECTED = DURATION_S * RATE;
/** start-up (~1.5-2.5 s) + the end of the run; the telemetry wait alone would add ~12 s */

interface Phase {
  readonly result: RunArtilleryResult;
  readonly report: ArtilleryReport;
  readonly progress: ArtilleryProgress[];
}

describe('runArtillery against a fake lab API', () => {
  let api: FakeLabApi;
  let dir: string;
  let env: Record<string, string>;
  let create: Phase;
  let get: Phase;
  let timings: TimingLine[];

  const run = async (phase: 'create' | 'get'): Promise<Phase> => {
    const progress: ArtilleryProgress[] = [];
    const outJson = join(dir, `${phase}.json`);
    const result = await runArtillery({
      // Not the scenario's default target: the labels below must come from the runner.
      operation: phase,
      labTarget: 'qldb',
      // A trailing slash, as API Gateway URLs have: the runner must not double it.
      target: `${api.url}/`,
      basePath: '/qldb/keepalive-on',
      durationS: DURATION_S,
      ratePerS: RATE,
      outJson,
      env,
      payload: phase === 'get' ? env.LAB_GOVIDS_FILE : undefined,
      onProgress: (p) => progress.push(p),
    });
    if (result.exitCode !== 0) throw new Error(`artillery ${phase} failed:\n${result.outputTail.join('\n')}`);
    return { result, report: readArtilleryReport(outJson), progress };
  };

  beforeAll(async () => {
    api = await startFakeLabApi();
    dir = mkdtempSync(join(tmpdir(), 'lab-loadtest-'));
    env = {
      LAB_TIMINGS_FILE: join(dir, 'timings.jsonl'),
      LAB_GOVIDS_FILE: join(dir, 'govids.csv'),
      LAB_GOVID_PREFIX: 'test-',
    };
    create = await run('create');
    get = await run('get');
    timings = readTimingLines(env.LAB_TIMINGS_FILE);
  });

  afterAll(async () => {
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stops each phase by itself: Artillery exits 0 without being aborted', () => {
    for (const phase of [create, get]) {
      expect(phase.result.stopped).toBeUndefined();
      expect(phase.result.exitCode).toBe(0);
    }
  });

  it('records every GovId answered 201, and they are what the API stored', () => {
    const govIds = readFileSync(env.LAB_GOVIDS_FILE, 'utf8').trim().split('\n');
    expect(govIds).toHaveLength(EXPECTED);
    expect(new Set(govIds).size).toBe(EXPECTED);
    for (const id of govIds) {
      expect(id).toMatch(/^test-[A-Za-z0-9]{16}$/);
      expect(api.people.has(id)).toBe(true);
    }
  });

  it('reads the created GovIds back, all with a 200', () => {
    const gets = api.requests.filter((r) => r.method === 'GET');
    expect(gets).toHaveLength(EXPECTED);
    expect(gets.every((r) => r.status === 200)).toBe(true);
    expect(gets.every((r) => r.path.startsWith('/lab/qldb/keepalive-on/person/'))).toBe(true);
    const read = new Set(gets.map((r) => r.path.split('/').pop() ?? ''));
    const created = new Set(api.people.keys());
    expect([...read].every((id) => created.has(id))).toBe(true);
    // Artillery runs cpus - 1 workers and deals payload rows and arrivals to them separately
    // (integer rates), so only a single worker reads each row exactly once.
    if (cpus().length <= 2) expect(read).toEqual(created);
  });

  it('summarizes each phase consistently', () => {
    for (const [phase, code] of [
      [create, '201'],
      [get, '200'],
    ] as const) {
      const s = summarizeRun(phase.report);
      expect(s.requests).toBe(EXPECTED);
      expect(s.responses).toBe(EXPECTED);
      expect(s.errors).toBe(0);
      expect(s.codes).toEqual({ [code]: EXPECTED });
      expect(s.throughputPerSec).toBeGreaterThan(RATE * 0.8);
      expect(s.throughputPerSec).toBeLessThan(RATE * 1.2);
      const l = s.latencyMs;
      expect(l).not.toBeNull();
      if (!l) return;
      expect(l.p50).toBeLessThanOrEqual(l.p95);
      expect(l.p95).toBeLessThanOrEqual(l.p99);
      expect(l.p99).toBeLessThanOrEqual(l.max);
    }
  });

  it("carries the processor's custom metrics in artillery's own report", () => {
    const c = create.report.aggregate;
    expect(c.summaries['lab.db_us']?.count).toBe(EXPECTED);
    expect(c.counters['lab.govids_recorded']).toBe(EXPECTED);
    // The fake API's first request on a base path is a cold start on a new connection.
    expect(c.counters['lab.cold_starts']).toBe(1);
    expect(c.counters['lab.new_connections']).toBe(1);
    expect(c.counters['lab.db_calls']).toBe(EXPECTED);
    expect(c.counters['lab.responses']).toBe(EXPECTED);
    expect(get.report.aggregate.summaries['lab.db_us']?.count).toBe(EXPECTED);
    expect(get.report.aggregate.counters['lab.govids_recorded']).toBeUndefined();
  });

  it('writes one timings line per response with the phase labels', () => {
    expect(timings).toHaveLength(2 * EXPECTED);
    const creates = timings.filter((t) => t.phase === 'create');
    const gets = timings.filter((t) => t.phase === 'get');
    expect(creates.map((t) => t.status)).toEqual(Array(EXPECTED).fill(201));
    expect(gets.map((t) => t.status)).toEqual(Array(EXPECTED).fill(200));
    for (const t of timings) {
      expect(t).toMatchObject({ target: 'qldb', variant: 'on' });
      expect(t.timing?.dbMs).toBeGreaterThan(0);
      expect(t.clientMs).toBeGreaterThanOrEqual(0);
    }
    const s = summarizeTimings(timings);
    expect(s.withTiming).toBe(2 * EXPECTED);
    expect(s.coldStarts).toBe(1);
    expect(s.newConnectionShare).toBeCloseTo(1 / (2 * EXPECTED));
    expect(s.dbMs?.p50).toBeGreaterThanOrEqual(1);
    expect(s.dbMs?.p99).toBeLessThanOrEqual(4.01);
  });

  it('reports progress: the phase, then the totals', () => {
    for (const [phase, name] of [
      [create, 'create-qldb-person'],
      [get, 'get-qldb-person'],
    ] as const) {
      expect(phase.progress[0]).toMatchObject({ phase: name, requests: 0, errors: 0 });
      expect(phase.progress.at(-1)).toMatchObject({ phase: 'summary', requests: EXPECTED, errors: 0 });
      expect(phase.progress.at(-1)?.elapsedS).toBeGreaterThanOrEqual(DURATION_S - 0.5);
    }
  });
});

describe('runArtillery stop', () => {
  it('ends the child by PID when the signal aborts, well before the phase would end', async () => {
    const api = await startFakeLabApi();
    const dir = mkdtempSync(join(tmpdir(), 'lab-loadtest-abort-'));
    try {
      const controller = new AbortController();
      const result = await runArtillery({
        operation: 'create',
        labTarget: 'dynamodb',
        target: api.url,
        basePath: '/dynamodb',
        durationS: 60,
        ratePerS: 2,
        outJson: join(dir, 'create.json'),
        env: { LAB_TIMINGS_FILE: join(dir, 'timings.jsonl') },
        signal: controller.signal,
        // Abort once load is flowing, so artillery's own shutdown path is exercised.
        onProgress: (p) => {
          if (p.phase === 'create-dynamodb-person') setTimeout(() => controller.abort(), 500);
        },
      });
      expect(result.stopped).toBe('abort');
      expect(result.exitCode).not.toBe(0);
      // Aborted, not run out: a 60 s phase at 2 requests/s sends about 120; counted, not timed,
      // this one sent under a third of that.
      const timings = join(dir, 'timings.jsonl');
      expect(existsSync(timings) ? readTimingLines(timings).length : 0).toBeLessThan((60 * 2) / 3);
    } finally {
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
