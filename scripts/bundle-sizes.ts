/**
 * `npm run sizes`: synthesizes every target and prints each function bundle's size,
 * minified and zipped, against the budgets. Exits 1 when a bundle is over budget.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { describeCliError } from '../core/errors';
import { TARGETS } from '../core/lab-functions';
import { PROJECT_ROOT } from '../core/paths';
import { loadTargetModules } from '../targets/registry';

// Every target module joins the registry before the usage lists them (each module is light).
await loadTargetModules();

const USAGE = `Usage: npm run sizes

Synthesizes every target (-c targets=${TARGETS.join(',')}) into a temporary folder and
prints each function bundle's size, minified and zipped, against its budget. Exits 1 when a
bundle is over budget.

  -h, --help   this text`;

// Before the synth (a minute): --help prints usage, a bad option one line and exit 2, as every CLI of the lab.
try {
  if (
    parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: false }).values.help
  ) {
    console.log(USAGE);
    process.exit(0);
  }
} catch (e) {
  const { code, line } = describeCliError(e, { program: 'sizes' });
  console.error(line);
  process.exit(code);
}

// Only now: --help and a bad option load none of the lab (its modules bring the AWS SDK).
const { measureBundles } = await import('../local/assembly/bundle-size');
const { readAssembly } = await import('../local/assembly/cloud-assembly');
const { localTarget } = await import('../local/targets');

const outdir = mkdtempSync(join(tmpdir(), 'lab-sizes-'));
try {
  console.log(`Synthesizing targets=${TARGETS.join(',')} ...`);
  // What each target's functions need named (a secret's ARN: any complete one will do, the bundles do not depend on it).
  const context = Object.entries(Object.assign({}, ...TARGETS.map((t) => localTarget(t).synthContext ?? {})));
  const synth = spawnSync(
    'npx',
    [
      'cdk',
      'synth',
      '--no-notices',
      '-q',
      '-o',
      outdir,
      '-c',
      `targets=${TARGETS.join(',')}`,
      ...context.flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      '-c',
      'powerTuning=false',
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
    },
  );
  if (synth.status !== 0) {
    console.error('cdk synth failed');
    process.exit(1);
  }
  const rows = measureBundles(readAssembly(outdir).functions);
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`\n${pad('function', 46)}${pad('minified', 12)}${pad('zipped', 12)}budget (zipped)`);
  for (const r of rows) {
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    console.log(
      `${pad(r.name, 46)}${pad(kb(r.minifiedBytes), 12)}${pad(kb(r.zippedBytes), 12)}${r.budgetBytes ? `${kb(r.budgetBytes)} ${r.zippedBytes <= r.budgetBytes ? 'ok' : 'OVER'}` : '-'}`,
    );
  }
  if (rows.some((r) => r.budgetBytes && r.zippedBytes > r.budgetBytes)) process.exit(1);
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
