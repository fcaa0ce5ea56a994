/**
 * npm run load with every workload on the local lab: create, then get, overwrite and update
 * on what it wrote, and the query, through Artillery, the SigV4 stage and the real bundles.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';

interface SummaryRow {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly requests: number;
  readonly errors: number;
  readonly dbRequests: { p50: number; max: number } | null;
}

interface TimingLine {
  readonly phase: string;
  readonly status: number;
}

describe('npm run load --operations create,get,overwrite,update,query', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-workloads-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('runs every phase with requests, no errors, and the statuses each operation answers', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'loadtest/load.ts',
        '--operations',
        'create,get,overwrite,update,query',
        '--targets',
        'dynamodb',
        '--keep-alive',
        'on',
        '--duration',
        '2',
        '--rate',
        '4',
        '--out',
        out,
      ],
      { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 200_000 },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { runs: SummaryRow[] };
    expect(summary.runs.map((x) => `${x.target}/${x.keepAlive}/${x.phase}`)).toEqual([
      'dynamodb/on/create',
      'dynamodb/on/get',
      'dynamodb/on/overwrite',
      'dynamodb/on/update',
      'dynamodb/on/query',
    ]);
    for (const run of summary.runs) {
      expect(run.requests, JSON.stringify(run)).toBeGreaterThan(0);
      expect(run.errors, JSON.stringify(run)).toBe(0);
      // One request each: GetItem, PutItem, UpdateItem, one Query on the index.
      expect(run.dbRequests?.p50, run.phase).toBe(1);
    }
    const statuses = new Map<string, Set<number>>();
    for (const line of readFileSync(join(out, 'timings.jsonl'), 'utf8').trim().split('\n')) {
      const t = JSON.parse(line) as TimingLine;
      statuses.set(t.phase, (statuses.get(t.phase) ?? new Set()).add(t.status));
    }
    expect(Object.fromEntries([...statuses].map(([p, s]) => [p, [...s]]))).toEqual({
      create: [201],
      get: [200],
      overwrite: [200],
      update: [200],
      query: [200],
    });
  }, 220_000);

  it('refuses phases that need the create phase without it, with one line and exit code 2', () => {
    for (const operations of ['overwrite', 'get,query', 'delete']) {
      const r = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'loadtest/load.ts', '--operations', operations],
        {
          cwd: PROJECT_ROOT,
          encoding: 'utf8',
        },
      );
      expect(r.status, operations).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^load: --operations/);
    }
  });
});
