/**
 * `npm run report -- --help` and `npm run tune -- --help` (and a bad option) answer without
 * loading the AWS SDK, vega, Artillery or aws-cdk-lib. Each CLI runs in a child Node with
 * two recorders: an ESM resolve hook (module.register) that logs every URL it resolves,
 * and, at exit, the CommonJS cache (what require() loaded, which ESM hooks do not see on
 * Node 20). A control run imports the heavy paths on purpose, so a recorder that saw
 * nothing cannot pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { copyFixtureResults } from './report-fixture';

const HEAVY = ['@aws-sdk', 'vega', 'vega-lite', 'artillery', 'aws-cdk-lib'] as const;

/** The package a resolved file belongs to (the last node_modules segment), or undefined. */
function packageOf(file: string): string | undefined {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file.replace(/\\/g, '/'));
  return m?.[1];
}

function heavyPackages(files: readonly string[]): string[] {
  const found = new Set<string>();
  for (const f of files) {
    const pkg = packageOf(f);
    if (pkg && HEAVY.some((h) => pkg === h || pkg.startsWith(`${h}/`))) found.add(pkg);
  }
  return [...found].sort();
}

let dir: string;
let preload: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lab-cli-startup-'));
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

interface Loaded {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly files: string[];
}

let runs = 0;
function runNode(args: readonly string[]): Loaded {
  runs += 1;
  const log = join(dir, `modules-${runs}.log`);
  writeFileSync(log, '');
  const env: NodeJS.ProcessEnv = { ...process.env, LAB_MODULE_LOG: log };
  delete env.NODE_OPTIONS;
  delete env.NODE_DEBUG;
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

describe('the recorders', () => {
  it('see heavy packages when they do load (ESM import and CommonJS require)', () => {
    const r = runNode([
      '--input-type=module',
      '-e',
      `await import('./report/plots.ts');
       await import('./tune/tune-runner.ts');
       const { sdkClientConfig } = await import('./aws/aws-options.ts');
       sdkClientConfig({ region: 'eu-west-1', regionSource: '--region', stackPrefix: 'LatencyLab' });`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(heavyPackages(r.files)).toEqual(
      expect.arrayContaining([
        'vega',
        'vega-lite',
        '@aws-sdk/client-sfn',
        '@aws-sdk/client-lambda',
        // required lazily by sdkClientConfig: only the CommonJS cache records it
        '@aws-sdk/credential-provider-node',
      ]),
    );
  }, 60_000);
});

describe.each([
  { cli: 'report/cli.ts', usage: 'Usage: npm run report' },
  { cli: 'tune/cli.ts', usage: 'Usage: npm run tune' },
])('$cli starts light', ({ cli, usage }) => {
  it('--help prints the usage and loads no AWS SDK, vega, Artillery or aws-cdk-lib', () => {
    const r = runNode([cli, '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(usage);
    // The recorder ran: the CLI itself is in the log.
    expect(r.files.some((f) => f.endsWith(cli))).toBe(true);
    expect(heavyPackages(r.files)).toEqual([]);
  }, 60_000);

  it('a bad option exits 2 with one line and loads nothing heavy', () => {
    const r = runNode([cli, '--no-such-option']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no-such-option/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(heavyPackages(r.files)).toEqual([]);
  }, 60_000);
});

describe('a report of a results folder', () => {
  it('renders with vega, reads the Power Tuning results through the parser alone: no AWS SDK', () => {
    const inDir = copyFixtureResults();
    try {
      const r = runNode(['report/cli.ts', '--in', inDir]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('report.html');
      expect(r.files.some((f) => f.endsWith('tune/power-tuning-result.ts'))).toBe(true);
      expect(r.files.some((f) => f.endsWith('tune/tune-runner.ts'))).toBe(false);
      expect(heavyPackages(r.files)).toEqual(['vega', 'vega-lite']);
      expect(JSON.parse(readFileSync(join(inDir, 'report.json'), 'utf8')).tuning).toHaveLength(1);
    } finally {
      rmSync(join(inDir, '..'), { recursive: true, force: true });
    }
  }, 60_000);
});
