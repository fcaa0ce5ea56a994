/**
 * npm run load's phases with the Artillery runner injected: one phase leaves no Artillery
 * JSON, and the run still records the others, writes summary.json and the report, and
 * exits non-zero.
 */
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimingLine } from '../../core/timing.mjs';
import type { RunArtilleryOptions, RunArtilleryResult } from '../../loadtest/artillery-runner';
import { loadExitCode, runLoadPhases, writeLoadSummary } from '../../loadtest/load-phases';
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
    const variant = o.env.LAB_KEEPALIVE;
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
    expect(runner.calls.map((c) => [c.env.LAB_KEEPALIVE, c.operation, c.labTarget])).toEqual([
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
