/**
 * test/tiers.mjs decides which files run in which tier and which start first: a name there
 * that matches no file would silently put a slow file in the fast tier, or order nothing. And
 * the fast tier's files share worker processes unless ISOLATED_TESTS names them: a file that
 * leaves process-wide state behind in a way the source shows must be named there or undo it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
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

/** Every test file under test/, relative to the project root. */
function testFiles(dir = join(PROJECT_ROOT, 'test')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? testFiles(join(dir, e.name))
      : e.name.endsWith('.test.ts')
        ? [relative(PROJECT_ROOT, join(dir, e.name))]
        : [],
  );
}

describe('files that share a worker process (the fast tier but ISOLATED_TESTS)', () => {
  const notShared = [...SLOW_TESTS, ...ALONE_TESTS, ...ISOLATED_TESTS].map(globRegExp);
  const shared = testFiles().filter((f) => !notShared.some((re) => re.test(f)));
  const source = (f: string) => readFileSync(join(PROJECT_ROOT, f), 'utf8');

  it('are most of the fast tier', () => {
    expect(shared.length).toBeGreaterThan(100);
  });

  it('never call vi.resetModules: the files after them would get second copies of stateful modules', () => {
    expect(shared.filter((f) => /\bvi\.resetModules\(/.test(source(f)))).toEqual([]);
  });

  it('never register a target module: a registration lasts for the process', () => {
    const registers = /\bregisterTarget\(|\bloadTargetModules\(|test\/targets\/[^'"]+\/index\.ts/;
    expect(shared.filter((f) => registers.test(source(f)))).toEqual([]);
  });

  it('restore every SDK client they mock: mockClient stubs the class for the whole process', () => {
    const leaks = shared.filter((f) => {
      const text = source(f);
      const mocks = text.match(/\bmockClient\(/g)?.length ?? 0;
      const restores = text.match(/\.restore\(\)/g)?.length ?? 0;
      return restores < mocks;
    });
    expect(leaks).toEqual([]);
  });
});
