/**
 * The aurorapg target through the whole lab (`npm run load`): the synthesized cluster's
 * template, the schema custom resource's real bundle, the functions' real bundles connecting
 * with RDS IAM tokens through the network model and the front. A bounded run with no error, the
 * same statuses, validation and timing block as every target, and the resume: with a short
 * auto-pause and keep-alive off, the phase after an idle gap finds the instance paused, and its
 * first call waits for the resume within its deadline and says so in its timing block.
 * https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../core/paths';

const SPAWN_LIMIT_MS = 600_000;
const RESUME_MS = 3000;

interface Row {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly requests: number;
  readonly errors: number;
  readonly cost: {
    readonly components: readonly { readonly key: string; readonly quantity: number }[];
  } | null;
}

interface Line {
  readonly phase: string;
  readonly status: number;
  readonly timing: {
    readonly dbMs: number;
    readonly newConnection: boolean;
    readonly dbRequests: number;
    readonly billed?: readonly { readonly key: string; readonly quantity: number }[];
  } | null;
}

describe('aurorapg through npm run load', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-aurora-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(
    'serves create and get with no error, bills its ACU-hours, and charges the resume after an idle gap',
    () => {
      const r = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          'loadtest/load.ts',
          '--targets',
          'aurorapg',
          '--keep-alive',
          'off',
          '--duration',
          '3',
          '--rate',
          '3',
          '--idle-gap',
          '6',
          '--out',
          out,
        ],
        {
          cwd: PROJECT_ROOT,
          encoding: 'utf8',
          timeout: SPAWN_LIMIT_MS,
          env: {
            ...process.env,
            LAB_AURORA_PG_AUTO_PAUSE_S: '2',
            LAB_AURORA_PG_RESUME_MS: String(RESUME_MS),
          },
        },
      );
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      const { runs } = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { runs: Row[] };
      expect(runs.map((x) => `${x.target}/${x.keepAlive}/${x.phase}`)).toEqual([
        'aurorapg/off/create',
        'aurorapg/off/get',
      ]);
      for (const row of runs) {
        expect(row.requests).toBeGreaterThan(0);
        expect(row.errors).toBe(0);
        // The writer runs for the phase: the lowest running capacity's ACU-hours (direct, minimum 0).
        expect(row.cost?.components.find((c) => c.key === 'aurorapg.acuHours')?.quantity).toBeCloseTo(
          0.5 * (3 / 3600),
          9,
        );
      }
      const lines = readFileSync(join(out, 'timings.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Line);
      const served = lines.filter((l) => l.timing !== null);
      expect(served.length).toBeGreaterThan(0);
      for (const l of served) {
        expect([200, 201, 404, 409]).toContain(l.status);
        // Keep-alive off: every call connects (SSLRequest, startup, password, then its statement).
        expect(l.timing?.newConnection).toBe(true);
        expect(l.timing?.dbRequests).toBeGreaterThanOrEqual(4);
      }
      // The first call after the gap waited for the resume, and its timing block says so.
      const resumed = served.filter((l) => l.timing?.billed?.some((b) => b.key === 'aurorapg.resumes'));
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      // A call that arrived while another's resume was under way waits for the rest of it.
      const waited = (l: Line) => l.timing?.billed?.find((b) => b.key === 'aurorapg.resumeMs')?.quantity ?? 0;
      for (const l of resumed) {
        expect(waited(l)).toBeGreaterThan(0);
        expect(waited(l)).toBeLessThanOrEqual(RESUME_MS);
        expect(l.timing?.dbMs).toBeGreaterThanOrEqual(waited(l));
      }
      expect(resumed.some((l) => waited(l) === RESUME_MS)).toBe(true);
      expect(resumed.some((l) => l.phase === 'get')).toBe(true);
    },
    SPAWN_LIMIT_MS + 60_000,
  );
});
