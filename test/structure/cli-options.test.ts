/**
 * The CLIs no other test starts: `npm run bench` and `npm run sizes` answer --help with their
 * usage and an unknown option with one line and exit 2, before any lab, synth or engine starts
 * (issue 22: `npm run bench -- --help` once printed a stack trace), and load none of the lab's
 * heavy packages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heavyPackages, ModuleRecorder } from '../support/module-recorder';

// Node with tsx's loader, as `npm run bench` starts it (tsx's own CLI, which `npm run sizes`
// uses, starts one Node more to do the same), recording every module it loads
// (test/experiments/experiment-cli.test.ts checks that the recorder sees a heavy one).
let recorder: ModuleRecorder;
beforeAll(() => {
  recorder = new ModuleRecorder();
});
afterAll(() => recorder?.dispose());
const run = (script: string, arg: string) => recorder.run([script, arg]);

describe.each([
  ['bench', 'bench/bench.ts'],
  ['sizes', 'scripts/bundle-sizes.ts'],
])('npm run %s', (name, script) => {
  it('--help prints the usage and exits 0', () => {
    const r = run(script, '--help');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: npm run ${name}`));
    expect(r.stdout).not.toMatch(/Synthesizing|Starting the local lab/);
    // Nothing of the lab: no AWS SDK, CDK, vega or Artillery.
    expect(heavyPackages(r.files)).toEqual([]);
  });

  it('an unknown option exits 2 with one line naming it', () => {
    const r = run(script, '--no-such-option');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${name}: .*--no-such-option`)),
    ]);
    expect(heavyPackages(r.files)).toEqual([]);
  });
});
