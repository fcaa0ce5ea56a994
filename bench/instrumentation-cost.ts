/**
 * What the EMF metrics (Powertools Metrics) cost: the same handler bundled with and without
 * them (esbuild, the deploy settings), imported in fresh processes for the init cost, and
 * emitTiming timed in a loop for the per-invocation cost.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PROJECT_ROOT } from '../core/paths';
import { RUNTIME_PARITY_ENV } from '../local/assembly/environment';
import { ladderOf } from '../runs/latency-histogram';
import { LAB_BUNDLE_OPTIONS } from './lab-bundle';

const IMPORT_PROBE = `const t=performance.now();await import(process.argv[1]);process.stdout.write(String(performance.now()-t));`;

async function bundle(outfile: string, withMetrics: boolean): Promise<number> {
  const noMetrics = join(PROJECT_ROOT, '.cache', 'no-metrics.ts');
  writeFileSync(noMetrics, 'export function emitTiming(): void {}\n');
  await build({
    ...LAB_BUNDLE_OPTIONS,
    entryPoints: [join(PROJECT_ROOT, 'targets/dynamodb/handler.ts')],
    outfile,
    absWorkingDir: PROJECT_ROOT,
    plugins: withMetrics
      ? []
      : [
          {
            name: 'no-metrics',
            setup(b) {
              b.onResolve({ filter: /\/metrics$/ }, () => ({ path: noMetrics }));
            },
          },
        ],
  });
  return statSync(outfile).size;
}

export async function instrumentationCost(runs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'lab-instr-'));
  try {
    const files = { with: join(dir, 'with.mjs'), without: join(dir, 'without.mjs') };
    const sizes = { with: await bundle(files.with, true), without: await bundle(files.without, false) };
    const env = {
      ...process.env,
      ...RUNTIME_PARITY_ENV,
      TABLE_NAME: 'T',
      KEEP_ALIVE: 'on',
      LAB_FUNCTION: 'dynamodb-get',
      AWS_REGION: 'us-east-1',
    };
    const importMs: Record<'with' | 'without', number[]> = { with: [], without: [] };
    for (let i = 0; i < runs; i++) {
      for (const k of ['with', 'without'] as const) {
        const out = execFileSync(process.execPath, ['--input-type=module', '-e', IMPORT_PROBE, files[k]], {
          env,
        });
        importMs[k].push(Number(out.toString()));
      }
    }
    // The EMF lines go to stdout (discarded, as a real write); the figure comes back on stderr.
    const micro = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import { emitTiming } from './lambda/shared/metrics.ts';
         const t = { dbMs: 9.8, newConnection: false, dbRequests: 1, coldStart: false, initType: 'on-demand' };
         for (let i = 0; i < 2000; i++) emitTiming('dynamodb-get', 200, t);
         const s = performance.now();
         for (let i = 0; i < 20000; i++) emitTiming('dynamodb-get', 200, t);
         process.stderr.write(String((performance.now() - s) / 20000));`,
      ],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' },
    );
    const perCall = Number(micro.stderr.trim().split('\n').at(-1));
    return {
      bytes: sizes,
      importP50Ms: {
        with: ladderOf(importMs.with)?.p50 ?? Number.NaN,
        without: ladderOf(importMs.without)?.p50 ?? Number.NaN,
      },
      perInvocationMs: perCall,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
