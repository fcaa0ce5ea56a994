/**
 * summary.json (npm run load) and report.json (npm run report) read the same run: the
 * same database samples (a 400 never reached the database) and the same HDR percentiles.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimingLine } from '../../core/timing.mjs';
import { writeLoadSummary } from '../../loadtest/load-phases';
import { buildFromResultsDir } from '../../report/build-report';
import {
  filterTimings,
  readArtilleryReport,
  readTimingLines,
  summarizeRun,
  summarizeTimings,
  toLabRow,
} from '../../runs/results';
import { tempDir } from './report-fixture';

const ARTILLERY = new URL('../loadtest/fixtures/artillery-get-report.json', import.meta.url).pathname;
const dir = join(tempDir('summary-agreement'), 'results');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 60 creates: 40 reach the database (dbMs 10..29.5, one in four on a new connection), 20 are 400s. */
function timings(): TimingLine[] {
  return Array.from({ length: 60 }, (_, i): TimingLine => {
    const rejected = i % 3 === 2;
    return {
      at: 1_795_334_734_000 + i * 100,
      target: 'dynamodb',
      variant: 'on',
      phase: 'create',
      status: rejected ? 400 : 201,
      clientMs: 20 + i,
      govId: rejected ? null : `g-${i}`,
      // A 400 fails validation first: no database call, dbMs 0, no connection.
      timing: {
        dbMs: rejected ? 0 : 10 + (i - Math.floor(i / 3)) * 0.5,
        newConnection: !rejected && i % 4 === 0,
        dbRequests: rejected ? 0 : 1,
        coldStart: i === 0,
        initType: 'on-demand',
      },
    };
  });
}

describe('summary.json and report.json agree', () => {
  it('gives a run with 400s the same db p50/p99 and newConnectionShare in both', async () => {
    mkdirSync(dir, { recursive: true });
    const timingsFile = join(dir, 'timings.jsonl');
    writeFileSync(
      timingsFile,
      `${timings()
        .map((t) => JSON.stringify(t))
        .join('\n')}\n`,
    );
    copyFileSync(ARTILLERY, join(dir, 'artillery-dynamodb-keepalive-on-create.json'));
    // What npm run load does for one phase (loadtest/load.ts)
    const row = toLabRow(
      { target: 'dynamodb', keepAlive: 'on', phase: 'create' },
      summarizeRun(readArtilleryReport(ARTILLERY)),
      summarizeTimings(
        filterTimings(readTimingLines(timingsFile), { target: 'dynamodb', variant: 'on', phase: 'create' }),
      ),
    );
    writeLoadSummary(dir, { target: 'local' }, [row], []);

    const report = await buildFromResultsDir(dir, { tuningDirs: [] });
    const [group] = report.groups;
    const db = group.layers.find((l) => l.layer === 'database')?.ladder;
    expect(db?.count).toBe(40);
    expect(row.dbMs).toEqual({ p50: db?.p50, p99: db?.p99 });
    expect(row.newConnectionShare).toBe(group.connections?.newConnectionShare);
    // Requests per call: the 400s sent none and are left out of both
    expect(row.dbRequests).toEqual({ p50: 1, max: 1 });
    expect(group.dbRequests).toEqual(row.dbRequests);

    // Without the 400s: dbMs 10, 10.5, ... 29.5; p50 the 20th (19.5), p99 the 40th (29.5)
    expect(row.dbMs?.p50).toBeCloseTo(19.5, 1);
    expect(row.dbMs?.p99).toBe(29.5);
    // i = 0, 4, 8, ... among the 40 that reached the database: i % 3 !== 2 and i % 4 === 0
    const fresh = timings().filter((t, i) => t.status !== 400 && i % 4 === 0).length;
    expect(row.newConnectionShare).toBe(fresh / 40);
  });
});
