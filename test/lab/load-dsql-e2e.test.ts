/** `npm run load -- --targets dynamodb,dsql`, end to end: the dsql bundles against PostgreSQL behind the DSQL front and model. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';

interface SummaryRow {
  target: string;
  keepAlive: string;
  phase: string;
  requests: number;
  errors: number;
  dbMs: { p50: number; p99: number } | null;
  dbRequests: { p50: number; max: number } | null;
  newConnectionShare: number | null;
}

describe('npm run load with the dsql target', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-load-dsql-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs dsql beside dynamodb with no errors; keep-alive off pays the whole PostgreSQL handshake', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'loadtest/load.ts',
        '--targets',
        'dynamodb,dsql',
        '--duration',
        '3',
        '--rate',
        '4',
        '--out',
        out,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 240_000 },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { runs: SummaryRow[] };
    const dsql = summary.runs.filter((x) => x.target === 'dsql');
    expect(dsql.map((x) => `${x.keepAlive}/${x.phase}`)).toEqual([
      'on/create',
      'on/get',
      'off/create',
      'off/get',
    ]);
    for (const row of dsql) {
      expect(row.requests).toBeGreaterThan(0);
      expect(row.errors).toBe(0);
    }
    const of = (keepAlive: string, phase: string) =>
      dsql.find((x) => x.keepAlive === keepAlive && x.phase === phase) as SummaryRow;
    // Parse, Bind, Describe, Execute, Sync on a kept connection; + SSLRequest, startup, token, Terminate without.
    expect(of('on', 'get').dbRequests?.p50).toBe(5);
    expect(of('off', 'get').dbRequests?.p50).toBe(9);
    expect(of('off', 'get').newConnectionShare).toBe(1);
    // TCP, SSLRequest, TLS, startup and auth: several round trips more than a kept connection.
    expect((of('off', 'get').dbMs?.p50 ?? 0) / (of('on', 'get').dbMs?.p50 ?? 1)).toBeGreaterThan(3);
  }, 300_000);
});
