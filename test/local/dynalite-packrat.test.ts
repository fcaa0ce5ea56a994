/**
 * dynalite's expression parsers with the memo (targets/dynamodb/dynalite-packrat.mjs) give exactly the
 * answers the generated parsers give, errors and expected tokens included, and parse what
 * DynamoDB accepts without the exponential backtracking.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoizedSource } from '../../targets/dynamodb/dynalite-packrat.mjs';

const require = createRequire(import.meta.url);
const DIR = join(dirname(require.resolve('dynalite')), 'db');

type Parse = (text: string, options: { context: Record<string, unknown> }) => unknown;

function parsers(name: string): { plain: Parse; memo: Parse } {
  const source = readFileSync(join(DIR, `${name}.js`), 'utf8');
  const load = (text: string) => {
    const module = { exports: {} as { parse: Parse } };
    new Function('module', 'exports', text)(module, module.exports);
    return module.exports.parse;
  };
  return { plain: load(source), memo: load(memoizedSource(source)) };
}

const RESERVED = new Set(['NAME', 'SIZE', 'DATE', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN']);
function context(): Record<string, unknown> {
  return {
    attrNames: { '#n': 'name', '#x': 'x' },
    attrVals: { ':v': { N: '1' }, ':s': { S: 'a' }, ':l': { L: [] } },
    unusedAttrNames: { '#n': true, '#x': true },
    unusedAttrVals: { ':v': true, ':s': true, ':l': true },
    isReserved: (name: string) => RESERVED.has(name.toUpperCase()),
    compare: () => false,
  };
}

/** The parse's result (or error) and what it left in the context, as one comparable string. */
function outcome(parse: Parse, text: string): string {
  const options = { context: context() };
  try {
    return JSON.stringify([parse(text, options), options.context]);
  } catch (err) {
    return `error ${(err as Error).message} ${JSON.stringify(options.context)}`;
  }
}

const CORPUS: Record<string, string[]> = {
  conditionParser: [
    'a = :v',
    '#n = :v and b <> :s',
    'not (a < b) or c between :v and :v',
    'a in (b, :v, c)',
    'attribute_exists(a.b[1])',
    'size(a) > :v',
    '((a = :v))',
    '(a = :v) and (b = :s',
    'begins_with(a, :v)',
    'attribute_type(a, :s)',
    'a = a',
    'size(a)',
    'foo(a)',
    'a = :missing',
    'name = :v',
    'a.b.c[0] = :s OR NOT contains(a, :s)',
    'a < b and (b < c or (c < d and not (d = :v)))',
    'a between :s and :v',
    'a ==',
    'a in ()',
    '#x = :v and #zz = :v',
    'a = :v or b = size(c) and c = :v',
    'contains(size(a), :v)',
    `a<b ${'or (a<b '.repeat(4)}${')'.repeat(4)}`,
  ],
  projectionParser: ['a, b.c, d[0]', '#n', 'a,,b', 'name', 'a.b[1].c', 'a[x]', ''],
  updateParser: [
    'SET a = :v',
    'SET a = a + :v, b = if_not_exists(b, :v) REMOVE c ADD d :v DELETE e :s',
    'SET a = list_append(a, :l)',
    'SET a = :v SET b = :v',
    'REMOVE a, a',
    'SET a.b = :v REMOVE a',
    'SET a = size(b)',
    'SET #n = :v',
    'SET a = :v + :v - :v',
    'set',
  ],
};

describe('dynalite parsers with a memo', () => {
  for (const [name, texts] of Object.entries(CORPUS)) {
    it(`${name}: the same result, error and context as the generated parser for each of ${texts.length} expressions`, () => {
      const { plain, memo } = parsers(name);
      for (const text of texts) expect(outcome(memo, text), text).toBe(outcome(plain, text));
    });
  }

  it('parses a condition nested 400 levels deep (the generated parser would run for ever)', () => {
    const { memo } = parsers('conditionParser');
    const depth = 400;
    const parsed = memo(`a<b ${'or (a<b '.repeat(depth)}${')'.repeat(depth)}`, { context: context() }) as {
      expression: { type: string };
    };
    expect(parsed.expression.type).toBe('or');
  });

  it('refuses a parser whose generated shape it does not know', () => {
    expect(() => memoizedSource('module.exports = {}')).toThrow(/not the PEG.js 0.10 output/);
  });
});
