/**
 * The valkey target through the whole local lab: `npm run load -- --targets valkey`, a short
 * bounded run (create and get, both keep-alive variants) against its cluster-mode redis-server
 * behind the network model's TLS, authenticated with IAM tokens. No error; one command per kept
 * call and AUTH plus QUIT around it on a new one; ECPUs metered from each command's bytes (at
 * least one per call), unpriced because the Valkey prices are unverified, in the summary.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../core/paths';

const SPAWN_LIMIT_MS = 600_000;

interface Row {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly requests: number;
  readonly errors: number;
  readonly dbRequests: { readonly p50: number } | null;
  readonly newConnectionShare: number;
  readonly cost: {
    readonly unpriced: readonly string[];
    readonly components: readonly {
      readonly key: string;
      readonly quantity: number;
      readonly basis: string;
    }[];
  } | null;
}

describe('the valkey target through npm run load', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-valkey-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(
    'runs create and get on both variants with no error, one command per kept call, ECPUs metered',
    () => {
      const r = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'loadtest/load.ts',
          '--targets',
          'valkey',
          '--duration',
          '2',
          '--rate',
          '4',
          '--out',
          out,
        ],
        { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: SPAWN_LIMIT_MS },
      );
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      const { runs } = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { runs: Row[] };
      expect(runs.map((x) => `${x.target}/${x.keepAlive}/${x.phase}`)).toEqual([
        'valkey/on/create',
        'valkey/on/get',
        'valkey/off/create',
        'valkey/off/get',
      ]);
      for (const row of runs) {
        const where = `${row.keepAlive}/${row.phase}`;
        expect(row.requests, where).toBeGreaterThan(0);
        expect(row.errors, where).toBe(0);
        // Kept: the command alone. New connection per call: AUTH, the command, QUIT.
        expect(row.dbRequests?.p50, where).toBe(row.keepAlive === 'on' ? 1 : 3);
        if (row.keepAlive === 'off') expect(row.newConnectionShare, where).toBe(1);
        const ecpu = row.cost?.components.find((c) => c.key === 'valkey.ecpu');
        // Every call moves at least one command, each billed as at least 1 KB: at least 1 ECPU.
        expect(ecpu?.quantity, where).toBeGreaterThanOrEqual(row.requests);
        expect(ecpu?.basis, where).toBe('modeled');
        expect(row.cost?.unpriced, where).toEqual(['valkey.ecpu']);
      }
      expect(r.stdout).toMatch(
        /^Network profile in-region \(seed \d+\): ElastiCache Serverless \(Valkey\) round trip 0\.3 ms/m,
      );
      expect(r.stdout).toMatch(/database \(Valkey ECPUs \(modeled\), Valkey data stored \(GB-hours\)\)/);
    },
    SPAWN_LIMIT_MS + 60_000,
  );
});
