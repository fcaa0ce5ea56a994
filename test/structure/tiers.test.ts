/**
 * test/tiers.mjs decides which files run in which tier and which start first: a name there
 * that matches no file would silently put a slow file in the fast tier, or order nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { ALONE_TESTS, ISOLATED_TESTS, LONG_TESTS, SLOW_TESTS } from '../tiers.mjs';

/** The globs tiers.mjs uses (`**` and `*`) as a regular expression. */
function globRegExp(glob: string): RegExp {
  const source = glob
    .split(/(\*\*\/|\*)/)
    .map((part) =>
      part === '**/' ? '(?:.*/)?' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`);
}

describe('test/tiers.mjs', () => {
  it('names only files that exist, each once (globs aside)', () => {
    for (const list of [SLOW_TESTS, ALONE_TESTS, ISOLATED_TESTS, LONG_TESTS]) {
      expect(list.filter((f) => !f.includes('*') && !existsSync(join(PROJECT_ROOT, f)))).toEqual([]);
      expect(new Set(list).size).toBe(list.length);
    }
  });

  it('orders only fast-tier files first: a slow file never runs in npm test', () => {
    const slow = [...SLOW_TESTS, ...ALONE_TESTS].map(globRegExp);
    expect(globRegExp('test/**/*.slow.test.ts').test('test/targets/x/y.slow.test.ts')).toBe(true);
    expect(LONG_TESTS.filter((f) => slow.some((re) => re.test(f)))).toEqual([]);
    expect(ISOLATED_TESTS.filter((f) => slow.some((re) => re.test(f)))).toEqual([]);
  });
});
