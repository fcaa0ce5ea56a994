/**
 * `npm run report -- --help` and `npm run tune -- --help` (and a bad option) answer without
 * loading the AWS SDK, vega, Artillery or aws-cdk-lib. Each CLI runs in a child Node with
 * two recorders: an ESM resolve hook (module.register) that logs every URL it resolves,
 * and, at exit, the CommonJS cache (what require() loaded, which ESM hooks do not see on
 * Node 20). A control run imports the heavy paths on purpose, so a recorder that saw
 * nothing cannot pass.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heavyPackages, type Loaded, ModuleRecorder } from '../support/module-recorder';
import { copyFixtureResults } from './report-fixture';

let recorder: ModuleRecorder;
beforeAll(() => {
  recorder = new ModuleRecorder();
});
afterAll(() => recorder?.dispose());
const runNode = (args: readonly string[]): Loaded => recorder.run(args);

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

describe('report.md', () => {
  it('renders from a built report without loading the chart renderer (report/plots.ts, vega)', () => {
    const inDir = copyFixtureResults();
    try {
      const r = runNode([
        '--input-type=module',
        '-e',
        `const { buildFromResultsDir } = await import('./report/build-report.ts');
         const { renderMarkdown } = await import('./report/render-markdown.ts');
         process.stdout.write(renderMarkdown(await buildFromResultsDir(${JSON.stringify(inDir)}), []));`,
      ]);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^# Serverless database latency report\n/);
      expect(r.files.some((f) => f.endsWith('report/render-markdown.ts'))).toBe(true);
      expect(r.files.filter((f) => /report\/(plots|plot-specs\/)/.test(f))).toEqual([]);
      expect(heavyPackages(r.files)).toEqual([]);
    } finally {
      rmSync(join(inDir, '..'), { recursive: true, force: true });
    }
  }, 60_000);
});
