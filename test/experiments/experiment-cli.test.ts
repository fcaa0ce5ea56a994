/**
 * `npm run experiment` answers --list, --help and bad options at once: exit 0 or 2, one line
 * on error, and nothing heavy loaded (no AWS SDK, vega, Artillery or aws-cdk-lib). The module
 * recorder is the one test/report/cli-startup.test.ts uses: an ESM resolve hook plus the
 * CommonJS cache at exit, with a control run that does load a heavy package.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPERIMENTS } from '../../experiments/registry';
import { HEAVY as DEFAULT_HEAVY, heavyPackages as heavyOf, ModuleRecorder } from '../support/module-recorder';

// hdr-histogram-js too: --list must not load the run-results model.
const HEAVY = [...DEFAULT_HEAVY, 'hdr-histogram-js'];
const heavyPackages = (files: readonly string[]) => heavyOf(files, HEAVY);

let recorder: ModuleRecorder;
beforeAll(() => {
  recorder = new ModuleRecorder();
});
afterAll(() => recorder?.dispose());
const run = (args: readonly string[]) => recorder.run(args);

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
