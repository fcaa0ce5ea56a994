/**
 * Statements the fuzzer (test/fuzz/qldb-fuzz.ts) found ending the engine with an error no
 * statement should raise; each is QLDB's error now, and the well-formed calls still answer.
 * - A function called with too few or too many arguments is a semantic error, as in the PartiQL
 *   reference implementation ("Incorrect number of arguments for 'lower'. Expected 1..1 but was
 *   supplied 0."): LOWER() read an argument that was not there. The signatures are the reference's:
 *   https://docs.aws.amazon.com/qldb/latest/developerguide/ql-functions.html
 * - TO_TIMESTAMP's `S` (fraction of a second) takes digits only: 'wx' with 'SSS' threw a
 *   SyntaxError building the fraction. https://docs.aws.amazon.com/qldb/latest/developerguide/ql-functions.timestamp-format.html
 */
import { describe, expect, it } from 'vitest';
import { TestLedger } from './support';

describe('function arity', () => {
  const t = new TestLedger();
  t.run('CREATE TABLE P');
  t.run("INSERT INTO P VALUE {'s': 'Ada', 'l': [1, 2], 't': `2016-01-01T`}");

  it.each([
    ['LOWER()', 'lower', '1..1', 0],
    ['UPPER(p.s, p.s)', 'upper', '1..1', 2],
    ['CHAR_LENGTH()', 'char_length', '1..1', 0],
    ['CHARACTER_LENGTH()', 'character_length', '1..1', 0],
    ['SIZE()', 'size', '1..1', 0],
    ['TO_STRING(p.t)', 'to_string', '2..2', 1],
    ['TO_TIMESTAMP()', 'to_timestamp', '1..2', 0],
  ])('%s is refused with a semantic error naming the expected count', (call, fn, range, given) => {
    const refused = t.refusal(`SELECT VALUE ${call} FROM P AS p`);
    expect(refused.code).toBe('BadRequestException');
    expect(refused.message).toMatch(/^Semantic Error: at line 1, column \d+: /);
    expect(refused.message).toContain(
      `Incorrect number of arguments for '${fn}'. Expected ${range} but was supplied ${given}.`,
    );
  });

  it('the same functions with their own number of arguments still answer', () => {
    expect(
      t.run(
        "SELECT VALUE [LOWER(p.s), UPPER(p.s), CHAR_LENGTH(p.s), SIZE(p.l), TO_STRING(p.t, 'yyyy'), TO_TIMESTAMP('2016')] FROM P AS p",
      ),
    ).toEqual(['["ada","ADA",3,2,"2016",2016T]']);
  });
});

describe("TO_TIMESTAMP's fraction of a second", () => {
  const t = new TestLedger();
  t.run('CREATE TABLE P');
  t.run("INSERT INTO P VALUE {'s': 'Ada'}");

  it.each([["'wx', 'SSS'"], ["'2016 1e', 'yyyy SS'"], ["'2016 -5', 'yyyy S'"]])(
    'TO_TIMESTAMP(%s) does not match its pattern: a semantic error',
    (args) => {
      const refused = t.refusal(`SELECT VALUE TO_TIMESTAMP(${args}) FROM P`);
      expect(refused.code).toBe('BadRequestException');
      expect(refused.message).toMatch(
        /^Semantic Error: at line 1, column \d+: TO_TIMESTAMP: '.*' does not match pattern '.*'$/,
      );
    },
  );

  it('digits still make the fraction', () => {
    expect(t.run("SELECT VALUE TO_TIMESTAMP('2016 5', 'yyyy S') FROM P")).toEqual(['2016-01-01T00:00:00.5Z']);
  });
});
