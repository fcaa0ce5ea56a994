/**
 * The target modules a process loads: the project's own list (a target kept for good) first,
 * then LAB_TARGET_MODULES (one run's, a test's throwaway), each file once, from the project root.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { PROJECT_TARGET_MODULES, TARGET_MODULES_ENV, targetModulePaths } from '../../core/target-modules';

describe('targetModulePaths', () => {
  it("lists every target folder's index once, and nothing else", () => {
    const folders = readdirSync(join(PROJECT_ROOT, 'targets'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(PROJECT_ROOT, 'targets', d.name, 'index.ts')))
      .map((d) => `targets/${d.name}/index.ts`);
    expect([...PROJECT_TARGET_MODULES].sort()).toEqual(folders.sort());
    expect(targetModulePaths({})).toEqual(PROJECT_TARGET_MODULES.map((m) => join(PROJECT_ROOT, m)));
  });

  it('puts the project list first, adds the variable, and names each file once', () => {
    const env = { [TARGET_MODULES_ENV]: ' targets/b/index.ts,, targets/a/index.ts ,/abs/c.ts' };
    expect(targetModulePaths(env, ['targets/a/index.ts'])).toEqual([
      join(PROJECT_ROOT, 'targets/a/index.ts'),
      join(PROJECT_ROOT, 'targets/b/index.ts'),
      '/abs/c.ts',
    ]);
  });
});
