/**
 * The bundles of the fast tier's one real `cdk synth`: global-setup.ts's, through the CDK CLI
 * with esbuild, on the flags every lab test uses (test/support/lab-test-context.ts). The slow
 * tier's cdk-synth.test.ts checks the same of the default flags' assembly, beside CDK's
 * template validation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { measureBundles } from '../../local/assembly/bundle-size';
import { type Assembly, readAssembly } from '../../local/assembly/cloud-assembly';
import { ensureSynth } from '../../local/assembly/ensure-synth';
import { localOutdir, localSynthContext } from '../../local/lab';
import { staticBuiltinImports } from '../support/bundle-imports';
import { LAB_TEST_CONTEXT } from '../support/lab-test-context';

describe("the lab's bundles, from the test run's synth", () => {
  let assembly: Assembly;
  /** One function per bundle folder: a target's functions share their entry's bundle. */
  const bundles = () => [...new Map(assembly.functions.map((f) => [f.assetDir, f])).values()];

  beforeAll(async () => {
    const context = localSynthContext(LAB_TEST_CONTEXT);
    const outdir = localOutdir(context);
    // Waits for global-setup.ts's synth while it runs (its lock); finds it done afterwards.
    await ensureSynth(outdir, context, () => {});
    assembly = readAssembly(outdir);
  });

  it('has a bundle for each function of both targets and both keep-alive variants', () => {
    const kinds = new Set(
      assembly.functions.map((f) => `${f.name.split('-')[0]} ${f.environment.KEEP_ALIVE}`),
    );
    expect([...kinds].sort()).toEqual(['dynamodb off', 'dynamodb on', 'redis off', 'redis on']);
    expect(new Set(bundles().map((f) => f.name.split('-')[0]))).toEqual(new Set(['dynamodb', 'redis']));
  });

  it('takes every Node built-in through CommonJS: no bundle imports one statically but node:module, for the require shim', () => {
    for (const f of bundles()) {
      const code = readFileSync(join(f.assetDir, 'index.mjs'), 'utf8');
      expect(staticBuiltinImports(code), f.name).toEqual(['node:module']);
    }
  });

  it("keeps every bundle within its target's zipped budget, client included", () => {
    for (const s of measureBundles(bundles())) {
      expect(s.budgetBytes, s.name).toBeDefined();
      expect(s.zippedBytes, s.name).toBeLessThanOrEqual(s.budgetBytes ?? 0);
    }
  });
});
