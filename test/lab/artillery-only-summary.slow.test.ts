/**
 * The summary of a real local run, rebuilt from Artillery's reports alone: `npm run load` on the
 * local lab (DynamoDB, keep-alive on, create then get), then summary.json, timings.jsonl,
 * lambda-logs.log and the GovIds file deleted and `npm run report -- --in DIR`. The rebuilt
 * summary.json has the same requests and database p50 per phase, within Artillery's sketch error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { SKETCH_RELATIVE_ACCURACY } from '../../runs/artillery-metrics';
import type { LoadSummary } from '../../runs/summary-schema';

const summaryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as LoadSummary;

describe('a local run, its summary rebuilt from Artillery reports alone', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-artillery-only-e2e-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('gives the same requests and database p50 per phase', () => {
    const load = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'loadtest/load.ts',
        '--targets',
        'dynamodb',
        '--keep-alive',
        'on',
        '--operations',
        'create,get',
        '--duration',
        '4',
        '--rate',
        '10',
        '--out',
        out,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 },
    );
    expect(load.status, `${load.stdout}\n${load.stderr}`).toBe(0);
    const local = summaryOf(out);
    const files = readdirSync(out);
    const gone = [
      'summary.json',
      'timings.jsonl',
      'lambda-logs.log',
      ...files.filter((f) => /^govids-.*\.csv$/.test(f)),
    ];
    expect(
      gone.every((f) => files.includes(f)),
      files.join(' '),
    ).toBe(true);
    for (const f of gone) rmSync(join(out, f));

    const report = spawnSync(process.execPath, ['--import', 'tsx', 'report/cli.ts', '--in', out], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(report.status, `${report.stdout}\n${report.stderr}`).toBe(0);
    expect(report.stdout).toContain("summary.json written from Artillery's reports (2 phases)");
    const rebuilt = summaryOf(out);
    expect(rebuilt.runs.map((r) => `${r.target} ${r.keepAlive} ${r.phase}`)).toEqual([
      'dynamodb on create',
      'dynamodb on get',
    ]);
    for (const [i, r] of rebuilt.runs.entries()) {
      const l = local.runs[i];
      expect([r.target, r.keepAlive, r.phase]).toEqual([l.target, l.keepAlive, l.phase]);
      expect(l.requests).toBe(40);
      expect(r.requests, r.phase).toBe(l.requests);
      expect(r.errors).toBe(l.errors);
      expect(r.coldStarts).toBe(l.coldStarts);
      expect(r.environments).toBe(l.environments);
      expect(r.dbRequests).toEqual(l.dbRequests);
      const a = r.dbMs?.p50 ?? Number.NaN;
      const b = l.dbMs?.p50 ?? Number.NaN;
      // Artillery's sketch (1%) against HDR's (0.1%), and the handlers' 3 decimals.
      expect(Math.abs(a - b), `${r.phase} db p50 ${a} vs ${b}`).toBeLessThanOrEqual(
        (SKETCH_RELATIVE_ACCURACY + 0.001) * Math.max(a, b) + 0.001,
      );
    }
  }, 420_000);
});
