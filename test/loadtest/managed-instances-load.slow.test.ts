/**
 * A load run on Lambda Managed Instances, as `npm run load -- --compute managed-instances` starts
 * it: each phase is billed as Managed Instances (the request charge, the instances' hours and the
 * management fee on them, never GB-seconds), and its row counts the connections open at the
 * database, at most one per request in flight.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLoad } from '../../loadtest/run-load';
import { computeOptions } from '../../local/cli/options';
import { MIN_INSTANCES } from '../../local/host/managed-instances-model';
import type { LabRow } from '../../runs/results';

const PARALLEL = 4;
const DURATION_S = 3;

describe('npm run load --compute managed-instances', () => {
  it('bills the phase as Managed Instances and counts its connections at the database', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lab-mi-load-'));
    try {
      const { context, ...compute } = computeOptions({ compute: 'managed-instances' });
      const r = await runLoad({
        outDir: root,
        targets: ['dynamodb'],
        variants: ['on'],
        operations: ['get'],
        durationS: DURATION_S,
        ratePerS: 1,
        parallel: PARALLEL,
        seedRecords: 10,
        warmupS: 0,
        where: 'local',
        local: { ...compute, managedInstances: { minEnvironments: 1 }, context },
        log: () => {},
        logError: () => {},
      });
      expect(r.failed).toEqual([]);
      const summary = JSON.parse(readFileSync(join(root, 'summary.json'), 'utf8')) as { runs: LabRow[] };
      const row = summary.runs[0];
      expect(row.errors).toBe(0);
      const units = new Map(row.cost?.units.map((u) => [u.key, u.quantity]));
      expect(units.get('lambda.managedInstances.requests')).toBe(row.cost?.invocations);
      // 1 vCPU with 2 GiB per vCPU: c7g.large, never fewer than the three instances AWS starts.
      const hours = (MIN_INSTANCES * DURATION_S) / 3600;
      expect(units.get('lambda.managedInstances.instanceHours.c7g.large')).toBeCloseTo(hours, 12);
      expect(units.get('lambda.managedInstances.managementFee.c7g.large')).toBeCloseTo(hours, 12);
      expect([...units.keys()].some((k) => k.startsWith('lambda.gbSeconds'))).toBe(false);
      expect(row.cost?.unpriced).toContain('lambda.managedInstances.instanceHours.c7g.large');
      // One environment takes every client: its connections, one per request in flight at most.
      const c = row.dbConnections;
      expect(c?.peak).toBeGreaterThanOrEqual(1);
      expect(c?.peak).toBeLessThanOrEqual(PARALLEL);
      expect(c?.used).toBeGreaterThanOrEqual(c?.peak ?? 0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 300_000);
});
