import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { NODE_BUILTIN_ALIAS, NODE_BUILTINS } from '../../lib/constructs/bundle-format';

const require = createRequire(import.meta.url);

describe('the bundles’ Node built-in shims (lib/constructs/bundle-format.ts)', () => {
  it('map both spellings of every built-in to a shim that is that very module', () => {
    for (const name of NODE_BUILTINS) {
      const shim = NODE_BUILTIN_ALIAS[`node:${name}`];
      expect(NODE_BUILTIN_ALIAS[name], name).toBe(shim);
      const file = join(PROJECT_ROOT, shim);
      expect(existsSync(file), file).toBe(true);
      expect(require(file), name).toBe(process.getBuiltinModule(`node:${name}`));
    }
  });

  it('name no module that is not a Node built-in', () => {
    const builtin = new Set(require('node:module').builtinModules as string[]);
    expect(NODE_BUILTINS.filter((n) => !builtin.has(n))).toEqual([]);
  });
});
