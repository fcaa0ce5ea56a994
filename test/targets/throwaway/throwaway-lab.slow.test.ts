/**
 * Issue 22's proof that a fifth target is files only: this folder's target, named by
 * LAB_TARGET_MODULES and by no other file, runs through `npm run load` (create + get, both
 * keep-alive variants, no error; its own billed unit metered, priced and shown in the cost table
 * and the report) and through one experiment (redis-vs-others --quick, which
 * takes every registry target), and every CLI list names it. The synth each lab runs is a child
 * process: the variable reaches it, and its assembly is keyed by it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../core/paths';
import { TARGET_MODULES_ENV } from '../../../core/target-modules';

const env = { ...process.env, [TARGET_MODULES_ENV]: 'test/targets/throwaway/index.ts' };
/** A spawned run's own bound; each test's limit is above it, so a stuck run fails as itself. */
const SPAWN_LIMIT_MS = 600_000;
const RUN_LIMIT_MS = SPAWN_LIMIT_MS + 60_000;
const run = (args: readonly string[], timeout = SPAWN_LIMIT_MS) =>
  spawnSync(process.execPath, ['--import', 'tsx', ...args], {
    cwd: PROJECT_ROOT,
    env,
    encoding: 'utf8',
    timeout,
  });

interface SummaryRow {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly requests: number;
  readonly errors: number;
  readonly dbRequests: { readonly p50: number } | null;
  readonly cost: {
    readonly perMillion: { readonly database: number };
    readonly unpriced: readonly string[];
    readonly components: readonly { readonly key: string; readonly quantity: number }[];
  } | null;
}

/** The load table's $ per million cell (loadtest/summary-table.ts). */
const tableUsd = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a target registered from its own folder, through the lab', () => {
  const out = mkdtempSync(join(tmpdir(), 'lab-throwaway-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(
    'runs npm run load: create and get on both variants, no error, one request per call',
    () => {
      const r = run([
        'loadtest/load.ts',
        '--targets',
        'throwaway',
        '--duration',
        '2',
        '--rate',
        '4',
        '--out',
        join(out, 'load'),
      ]);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      const summary = JSON.parse(readFileSync(join(out, 'load', 'summary.json'), 'utf8')) as {
        runs: SummaryRow[];
      };
      expect(summary.runs.map((x) => `${x.target}/${x.keepAlive}/${x.phase}`)).toEqual([
        'throwaway/on/create',
        'throwaway/on/get',
        'throwaway/off/create',
        'throwaway/off/get',
      ]);
      for (const row of summary.runs) {
        expect(row.requests).toBeGreaterThan(0);
        expect(row.errors).toBe(0);
        expect(row.dbRequests?.p50).toBe(1);
      }
      // Its label and its network link, from its own module.
      expect(r.stdout).toMatch(/^Network profile in-region \(seed \d+\): Throwaway round trip 1 ms/m);
      expect(r.stdout).toMatch(/^Reads \(get\): fastest Throwaway \(keep-alive (on|off)\)/m);
      const report = readFileSync(join(out, 'load', 'report.md'), 'utf8');
      expect(report).toMatch(/^\| Throwaway \| on \|/m);

      // Its own unit: the bytes its client sent, metered into widget requests (at least one per
      // call) by its rule, priced from its own file, in each row's cost and the table's db column.
      for (const row of summary.runs) {
        const widgets = row.cost?.components.find((c) => c.key === 'throwaway.widgetRequests');
        expect(widgets?.quantity, `${row.keepAlive}/${row.phase}`).toBeGreaterThanOrEqual(row.requests);
        expect(row.cost?.unpriced).toEqual([]);
        expect(row.cost?.perMillion.database).toBeGreaterThanOrEqual(50);
        const db = tableUsd(row.cost?.perMillion.database ?? Number.NaN);
        expect(r.stdout).toMatch(
          new RegExp(`^Throwaway +${row.keepAlive} +.* ${row.phase} +.* ${escape(db)}$`, 'm'),
        );
      }
      expect(r.stdout).toMatch(/^Cost: \$ per million requests .*database \(Throwaway widget requests\);/m);
      // The report's cost section names the unit with its price and source.
      expect(report).toMatch(
        /^\| throwaway\.widgetRequests \| widget request \(a test target's made-up unit\) \| computed \| \$50 per 1,000,000 \| https:\/\/example\.com\/throwaway-pricing/m,
      );
    },
    RUN_LIMIT_MS,
  );

  it(
    'runs redis-vs-others --quick with it as the only target, its ladders named by its label',
    () => {
      const r = run([
        'experiments/cli.ts',
        'redis-vs-others',
        '--quick',
        '--targets',
        'throwaway',
        '--duration',
        '2',
        '--out',
        join(out, 'experiment'),
      ]);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      // Through Lambda, every target's ladders are a table of the report (the compared rows are
      // the direct Redis client's, which does not run without redis).
      const report = JSON.parse(readFileSync(join(out, 'experiment', 'report.json'), 'utf8')) as {
        experiment: { tables: { title: string; rows: string[][] }[]; steps: { name: string }[] };
      };
      const ladders = report.experiment.tables[0].rows;
      expect(ladders.map((x) => x.slice(0, 4).join(' '))).toContain('Throwaway get 1 database');
      expect(ladders.map((x) => x.slice(0, 4).join(' '))).toContain('Throwaway update 5 client');
      expect(r.stderr).toContain('direct-client did not run: redis is not among the targets chosen');
      // Every step's own load ran the target without an error.
      const steps = readdirSync(join(out, 'experiment', 'steps'));
      expect(steps.sort()).toEqual(['parallel-1', 'parallel-5']);
      for (const step of steps) {
        const { runs } = JSON.parse(
          readFileSync(join(out, 'experiment', 'steps', step, 'summary.json'), 'utf8'),
        ) as {
          runs: SummaryRow[];
        };
        expect(runs.map((x) => x.phase)).toEqual(['create', 'get', 'overwrite', 'update']);
        for (const row of runs) {
          expect(row.target).toBe('throwaway');
          expect(row.errors).toBe(0);
        }
      }
    },
    RUN_LIMIT_MS,
  );

  it(
    'is in the lists of every CLI: load and experiment --help, experiment --list, npm run local --help',
    () => {
      expect(run(['loadtest/load.ts', '--help'], 60_000).stdout).toMatch(
        /--targets LIST +comma list of dynamodb, qldb, redis, dsql, aurorapg, throwaway/,
      );
      expect(run(['experiments/cli.ts', '--help'], 60_000).stdout).toMatch(
        /--targets LIST +only these of dynamodb, qldb, redis, dsql, aurorapg, throwaway/,
      );
      expect(run(['experiments/cli.ts', '--list'], 60_000).stdout).toMatch(
        /^redis-vs-others\n(?: .*\n)*? {2}targets +redis, dynamodb, qldb, dsql, aurorapg, throwaway;/m,
      );
      const local = spawnSync('npm', ['run', '-s', 'local', '--', '--help'], {
        cwd: PROJECT_ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(local.stdout).toMatch(
        /--targets LIST +comma list of dynamodb, qldb, redis, dsql, aurorapg, throwaway/,
      );
    },
    RUN_LIMIT_MS,
  );
});
