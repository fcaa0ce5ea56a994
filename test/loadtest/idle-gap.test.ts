/**
 * The idle gap and the load shape in npm run load's phases, with the Artillery runner injected:
 * every phase after create runs as warm-up (counted apart), gap, phase; summary.json's rows say
 * open or closed loop and, after a gap, which warm environments opened a connection and what
 * that cost; the report shows both. The gap ends at once when the signal aborts.
 */
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { TimingLine } from '../../core/timing.mjs';
import type { RunArtilleryOptions, RunArtilleryResult } from '../../loadtest/artillery-runner';
import { idleGap, loadShapeOf, runLoadPhases, writeLoadSummary } from '../../loadtest/load-phases';
import { writeReport } from '../../report/write-report';
import { summarizeAfterGap } from '../../runs/results';

const ARTILLERY = new URL('./fixtures/artillery-get-report.json', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lab-idle-gap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Call = { readonly newConnection: boolean; readonly coldStart: boolean; readonly dbMs: number };

const line = (phase: string, variant: string, c: Call, i: number): TimingLine => ({
  at: 1_795_334_734_000 + i,
  target: 'dynamodb',
  variant,
  phase,
  status: 200,
  clientMs: c.dbMs + 2,
  govId: `g-${i}`,
  timing: { ...c, dbRequests: 1, initType: 'on-demand' },
});

/**
 * A warm-up starts 2 environments (2 cold calls); after the gap one of them has lost its
 * connection (a new one at 30 ms), the other kept it (10 ms), and the phase goes on reusing.
 */
const WARMUP: Call[] = [
  { newConnection: true, coldStart: true, dbMs: 35 },
  { newConnection: true, coldStart: true, dbMs: 36 },
];
const AFTER_GAP: Call[] = [
  { newConnection: true, coldStart: false, dbMs: 30 },
  { newConnection: false, coldStart: false, dbMs: 10 },
  { newConnection: false, coldStart: false, dbMs: 11 },
  { newConnection: false, coldStart: false, dbMs: 12 },
];

function stubRunner() {
  const calls: { readonly o: RunArtilleryOptions; readonly at: number }[] = [];
  const run = async (o: RunArtilleryOptions): Promise<RunArtilleryResult> => {
    calls.push({ o, at: Date.now() });
    const phase = o.operation ?? 'get';
    const warmup = o.outJson.endsWith('-warmup.json');
    copyFileSync(ARTILLERY, o.outJson);
    const list = warmup || phase === 'create' ? WARMUP : AFTER_GAP;
    list.forEach((c, i) => {
      appendFileSync(
        o.env.LAB_TIMINGS_FILE,
        `${JSON.stringify(line(phase, String(o.variables?.labKeepAlive), c, i))}\n`,
      );
    });
    return { exitCode: 0, wallMs: 10, outputTail: [] };
  };
  return { run, calls };
}

describe('an idle gap before each phase after create', () => {
  it('runs warm-up, gap, phase; the rows carry the load shape and afterGap; the report shows them', async () => {
    const runner = stubRunner();
    const logs: string[] = [];
    const common = {
      outDir: dir,
      url: 'http://127.0.0.1:9',
      basePath: (t: string, v: string) => `/${t}/keepalive-${v}`,
      env: {},
      targets: ['dynamodb'],
      variants: ['on'],
      operations: ['create', 'get'] as const,
      durationS: 5,
      ratePerS: 10,
      parallel: 4,
      idleGapS: 0.3,
      runArtillery: runner.run,
      log: (l: string) => logs.push(l),
      logError: (l: string) => logs.push(l),
    };
    const { rows, failed, interrupted } = await runLoadPhases(common);
    expect(interrupted).toBe(false);
    expect(failed).toEqual([]);
    // create, then the get warm-up (2 s, its own files), the gap, then get.
    const files = runner.calls.map((c) => c.o.outJson.replace(`${dir}/`, ''));
    expect(files).toEqual([
      'artillery-dynamodb-keepalive-on-create.json',
      'artillery-dynamodb-keepalive-on-get-warmup.json',
      'artillery-dynamodb-keepalive-on-get.json',
    ]);
    expect(runner.calls.map((c) => c.o.durationS)).toEqual([5, 2, 5]);
    expect(runner.calls[1].o.env.LAB_TIMINGS_FILE).toBe(join(dir, 'warmup-timings.jsonl'));
    expect(runner.calls.every((c) => c.o.parallel === 4)).toBe(true);
    expect(runner.calls[2].at - runner.calls[1].at).toBeGreaterThanOrEqual(290);
    expect(logs.some((l) => l.includes('idle gap of 0.3 s'))).toBe(true);

    const [create, get] = rows;
    expect(create).toMatchObject({ mode: 'closed', parallel: 4, ratePerS: null });
    expect(create.afterGap).toBeUndefined();
    // Only the phase's own timings count: the warm-up's cold starts are not in the row.
    expect(get).toMatchObject({ phase: 'get', requests: 15, coldStarts: 0, mode: 'closed', parallel: 4 });
    expect(get.afterGap).toEqual({
      gapS: 0.3,
      warmCalls: 4,
      firstCallsNewConnection: 1,
      newConnectionDbMsP50: 30,
      reusedDbMsP50: expect.closeTo(11, 1),
    });

    writeLoadSummary(dir, { target: 'local', ...loadShapeOf(common) }, rows, failed);
    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary.lab).toMatchObject({ mode: 'closed', parallel: 4, ratePerS: null });
    expect(summary.runs[1].afterGap.firstCallsNewConnection).toBe(1);

    const { files: out } = await writeReport({ inDir: dir, outDir: dir });
    const json = JSON.parse(readFileSync(out.json, 'utf8'));
    const getGroup = json.groups.find((g: { phase: string }) => g.phase === 'get');
    expect(getGroup.afterGap).toEqual(get.afterGap);
    expect(getGroup.load).toEqual({ mode: 'closed', parallel: 4, ratePerS: null });
    expect(getGroup.throughputPerMinute).toBeCloseTo(getGroup.throughputPerSec * 60, 6);
    const md = readFileSync(out.markdown, 'utf8');
    expect(md).toContain('After the idle gap');
    expect(md).toMatch(/Throughput: keep-alive on \d+ requests\/min \(closed loop of 4 workers\)/);
    const html = readFileSync(out.html, 'utf8');
    expect(html).toContain('After the idle gap');
    expect(html).toContain('requests/min');
  });

  it('an open loop records its rate and no workers; without a gap there is no warm-up and no afterGap', async () => {
    const runner = stubRunner();
    const sub = join(dir, 'open');
    mkdirSync(sub, { recursive: true });
    const { rows } = await runLoadPhases({
      outDir: sub,
      url: 'http://127.0.0.1:9',
      basePath: (t, v) => `/${t}/keepalive-${v}`,
      env: {},
      targets: ['dynamodb'],
      variants: ['on'],
      durationS: 1,
      ratePerS: 7,
      runArtillery: runner.run,
      log: () => {},
      logError: () => {},
    });
    expect(runner.calls).toHaveLength(2);
    expect(runner.calls.every((c) => c.o.parallel === undefined)).toBe(true);
    for (const r of rows) {
      expect(r).toMatchObject({ mode: 'open', parallel: null, ratePerS: 7 });
      expect(r.afterGap).toBeUndefined();
    }
  });

  it('the gap says how long is left and ends at once when the signal aborts', async () => {
    // The gap's own clock, faked: "at once" is checked without reading a wall clock.
    vi.useFakeTimers();
    try {
      const abort = new AbortController();
      const gap = idleGap(60, 'x', () => {}, abort.signal);
      await vi.advanceTimersByTimeAsync(100);
      abort.abort();
      // Resolved with the clock still at 0.1 s of the 60 s, and none of the gap's timers left.
      expect(await gap).toBe(false);
      expect(vi.getTimerCount()).toBe(0);
      const done = idleGap(0.05, 'x', () => {});
      await vi.advanceTimersByTimeAsync(50);
      expect(await done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('afterGap counts warm calls only, with the database filter (a 400 never reached it)', () => {
    const lines = [
      line('get', 'on', { newConnection: true, coldStart: true, dbMs: 40 }, 0),
      line('get', 'on', { newConnection: true, coldStart: false, dbMs: 28 }, 1),
      line('get', 'on', { newConnection: false, coldStart: false, dbMs: 9 }, 2),
      { ...line('get', 'on', { newConnection: false, coldStart: false, dbMs: 0 }, 3), status: 400 },
    ];
    expect(summarizeAfterGap(lines, 65)).toEqual({
      gapS: 65,
      warmCalls: 2,
      firstCallsNewConnection: 1,
      newConnectionDbMsP50: 28,
      reusedDbMsP50: 9,
    });
  });
});
