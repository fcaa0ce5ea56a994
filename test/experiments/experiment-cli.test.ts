/**
 * `npm run experiment` answers --list, --help and bad options at once: exit 0 or 2, one line
 * on error, and nothing heavy loaded (no AWS SDK, vega, Artillery or aws-cdk-lib). The module
 * recorder is the one test/report/cli-startup.test.ts uses: an ESM resolve hook plus the
 * CommonJS cache at exit, with a control run that does load a heavy package.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { EXPERIMENTS } from '../../experiments/registry';

const HEAVY = ['@aws-sdk', 'vega', 'vega-lite', 'artillery', 'aws-cdk-lib', 'hdr-histogram-js'] as const;

function heavyPackages(files: readonly string[]): string[] {
  const found = new Set<string>();
  for (const f of files) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(f.replace(/\\/g, '/'));
    const pkg = m?.[1];
    if (pkg && HEAVY.some((h) => pkg === h || pkg.startsWith(`${h}/`))) found.add(pkg);
  }
  return [...found].sort();
}

let dir: string;
let preload: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lab-experiment-cli-'));
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(log, r.url + '\\n');
  return r;
}
`,
  );
  preload = join(dir, 'preload.mjs');
  writeFileSync(
    preload,
    `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const log = process.env.LAB_MODULE_LOG;
register(${JSON.stringify(pathToFileURL(hook).href)}, { data: { log } });
process.on('exit', () => {
  appendFileSync(log, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');
});
`,
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let runs = 0;
function run(args: readonly string[]) {
  runs += 1;
  const log = join(dir, `modules-${runs}.log`);
  writeFileSync(log, '');
  const env: NodeJS.ProcessEnv = { ...process.env, LAB_MODULE_LOG: log };
  delete env.NODE_OPTIONS;
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', pathToFileURL(preload).href, ...args],
    { cwd: PROJECT_ROOT, env, encoding: 'utf8', timeout: 60_000 },
  );
  return {
    status: child.status,
    stdout: child.stdout,
    stderr: child.stderr,
    files: readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

describe('npm run experiment starts light', () => {
  it('the recorder sees a heavy package when one loads', () => {
    const r = run(['--input-type=module', '-e', "await import('./runs/latency-histogram.ts');"]);
    expect(r.status, r.stderr).toBe(0);
    expect(heavyPackages(r.files)).toEqual(['hdr-histogram-js']);
  }, 60_000);

  it('--list names every experiment with its article, targets and both durations', () => {
    const r = run(['experiments/cli.ts', '--list']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.files.some((f) => f.endsWith('experiments/cli.ts'))).toBe(true);
    expect(heavyPackages(r.files)).toEqual([]);
    const blocks = r.stdout.trim().split(/\n\n/);
    expect(blocks.map((b) => b.split('\n')[0])).toEqual(EXPERIMENTS.map((e) => e.name));
    for (const [i, e] of EXPERIMENTS.entries()) {
      expect(blocks[i]).toContain(`article   ${e.article}`);
      expect(blocks[i]).toMatch(/targets {3}\S/);
      expect(blocks[i]).toMatch(/by default, ~[\d a-z]+ with --quick/);
    }
    // Targets the articles had that the lab does not are named with the reason.
    expect(r.stdout).toContain('faunadb (missing: service shut down 2025-05-30)');
    expect(blocks[EXPERIMENTS.findIndex((e) => e.name === 'redis-vs-others')]).toContain(
      'redis, dynamodb, qldb, dsql',
    );
  }, 60_000);

  it('--help prints the usage and loads nothing heavy', () => {
    const r = run(['experiments/cli.ts', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: npm run experiment -- NAME');
    expect(heavyPackages(r.files)).toEqual([]);
  }, 60_000);

  it.each([
    [['--no-such-option'], /no-such-option/],
    [['no-such-experiment'], /no experiment "no-such-experiment"; known: keep-alive/],
    [[], /name one experiment/],
    [['keep-alive', '--target', 'moon'], /--target must be local or aws/],
    [['keep-alive', '--targets', 'faunadb'], /--targets must be a comma list/],
    [['keep-alive', '--duration', '0'], /--duration must be an integer/],
    [['--list', 'keep-alive'], /--list takes no experiment name/],
  ])(
    '%j exits 2 with one line and loads nothing heavy',
    (args, message) => {
      const r = run(['experiments/cli.ts', ...args]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
      expect(heavyPackages(r.files)).toEqual([]);
    },
    60_000,
  );
});
