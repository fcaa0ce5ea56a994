/**
 * LIKE without backtracking (targets/qldb/engine/partiql-like.ts): it answers what the pattern's
 * regular expression answers, for every short pattern and text, and its work stays within the
 * text's length times the number of `%` segments where a backtracking RegExp's grows exponentially.
 * ql-operators.html: "LIKE: TRUE if the operand matches a pattern" (% any characters, _ one).
 */
import { describe, expect, it } from 'vitest';
import { compileLike, likeMatches } from '../../targets/qldb/engine/partiql-like';

/** Every string of length 0..max over the alphabet. */
function strings(alphabet: readonly string[], max: number): string[] {
  let level = [''];
  const all = [''];
  for (let n = 1; n <= max; n++) {
    level = level.flatMap((s) => alphabet.map((c) => s + c));
    all.push(...level);
  }
  return all;
}

/** The pattern as the anchored regular expression it stands for (fine for short inputs). */
function reference(pattern: string): RegExp {
  const body = Array.from(pattern, (c) =>
    c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  ).join('');
  return new RegExp(`^${body}$`, 'su');
}

describe('LIKE', () => {
  it('agrees with the regular expression for every pattern up to 5 characters and text up to 6', () => {
    const texts = strings(['a', 'b'], 6);
    let checked = 0;
    for (const pattern of strings(['a', 'b', '%', '_'], 5)) {
      const like = compileLike(pattern, undefined);
      const re = reference(pattern);
      for (const text of texts) {
        if (likeMatches(text, like) !== re.test(text)) {
          throw new Error(`'${text}' LIKE '${pattern}': expected ${re.test(text)}`);
        }
        checked += 1;
      }
    }
    expect(checked).toBe(1365 * 127);
  });

  it('matches code points, and an escaped wildcard as itself', () => {
    expect(likeMatches('😀x', compileLike('_x', undefined))).toBe(true);
    expect(likeMatches('100%', compileLike('100!%', '!'))).toBe(true);
    expect(likeMatches('1000', compileLike('100!%', '!'))).toBe(false);
    expect(likeMatches('a%b', compileLike('%!%%', '!'))).toBe(true);
    expect(() => compileLike('abc!', '!')).toThrow(/ends with its escape character/);
  });

  it("does work in proportion to the text, not exponential in the pattern's wildcards", () => {
    const text = 'a'.repeat(20_000);
    const pattern = `${'%a'.repeat(30)}%b%`;
    let steps = 0;
    expect(likeMatches(text, compileLike(pattern, undefined), () => steps++)).toBe(false);
    // Each of the 31 segments scans forward from where the previous one ended: one pass in all
    // (the last, `b`, is looked for at every place after the 30 `a`s, and found at none).
    expect(steps).toBeGreaterThan(text.length - 100);
    expect(steps).toBeLessThanOrEqual(text.length + 31);
  });
});
