/**
 * test/tiers.mjs decides which files run in which tier and which start first: a name there
 * that matches no file would silently put a slow file in the fast tier, or order nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { LONG_TESTS, SLOW_TESTS } from '../tiers.mjs';

describe('test/tiers.mjs', () => {
  it('names only files that exist, each once', () => {
    for (const list of [SLOW_TESTS, LONG_TESTS]) {
      expect(list.filter((f) => !existsSync(join(PROJECT_ROOT, f)))).toEqual([]);
      expect(new Set(list).size).toBe(list.length);
    }
  });

  it('orders only fast-tier files first: a slow file never runs in npm test', () => {
    expect(LONG_TESTS.filter((f) => SLOW_TESTS.includes(f))).toEqual([]);
  });
});
