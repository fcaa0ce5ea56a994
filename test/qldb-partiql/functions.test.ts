/**
 * The functions QLDB's PartiQL lists: aggregates (COUNT, SUM, AVG, MIN, MAX), conditional
 * (COALESCE, NULLIF, EXISTS), date and time (DATE_ADD, DATE_DIFF, EXTRACT, TO_STRING, TO_TIMESTAMP,
 * UTCNOW), scalar (TXID, SIZE), string (CHAR_LENGTH, CHARACTER_LENGTH, LOWER, UPPER, SUBSTRING, TRIM)
 * and CAST. "Unless otherwise stated, all of these functions propagate null and missing argument values."
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-functions.html
 */
import { describe, expect, it } from 'vitest';
import { TestLedger } from './support';

function people(): TestLedger {
  const t = new TestLedger();
  t.run('CREATE TABLE P');
  t.run(
    "INSERT INTO P << {'name': '  Ada  ', 'age': 36, 'score': 9.5, 'born': `1815-12-10T`}, {'name': 'Alan', 'age': 41, 'score': 7.25, 'born': `1912-06-23T`}, {'name': 'Grace', 'age': null} >>",
  );
  return t;
}

describe('aggregate functions', () => {
  const t = people();

  // ql-functions.count.html: COUNT(*) counts rows; COUNT(expr) counts non-null values. The driver's
  // own test reads SELECT COUNT(*)'s field as _1.
  it('COUNT(*), COUNT(field), SUM, AVG, MIN, MAX over the rows', () => {
    expect(t.run('SELECT COUNT(*) FROM P')).toEqual(['{_1:3}']);
    expect(t.run('SELECT COUNT(age) AS n, SUM(age) AS s, MIN(age) AS lo, MAX(age) AS hi FROM P')).toEqual([
      '{n:2,s:77,lo:36,hi:41}',
    ]);
    expect(t.run('SELECT VALUE AVG(score) FROM P')).toEqual(['8.375']);
    expect(t.run("SELECT COUNT(*) FROM P WHERE name = 'nobody'")).toEqual(['{_1:0}']);
    expect(t.run("SELECT VALUE SUM(age) FROM P WHERE name = 'nobody'")).toEqual(['null']);
  });
});

describe('string functions', () => {
  const t = people();

  // ql-functions.char_length.html, lower.html, upper.html, substring.html, trim.html.
  it('CHAR_LENGTH, LOWER, UPPER, SUBSTRING and TRIM', () => {
    expect(
      t.run(
        "SELECT CHAR_LENGTH(name) AS l, CHARACTER_LENGTH('héllo') AS c, LOWER(name) AS lo, UPPER(name) AS up, SUBSTRING(name, 1, 2) AS s1, SUBSTRING(name FROM 2) AS s2 FROM P WHERE name = 'Alan'",
      ),
    ).toEqual(['{l:4,c:5,lo:"alan",up:"ALAN",s1:"Al",s2:"lan"}']);
    expect(
      t.run(
        "SELECT VALUE [TRIM(name), TRIM(LEADING FROM name), TRIM(TRAILING FROM name), TRIM(BOTH 'x' FROM 'xxaxx')] FROM P WHERE age = 36",
      ),
    ).toEqual(['["Ada","Ada  ","  Ada","a"]']);
  });

  it('propagates NULL and MISSING: CHAR_LENGTH(null) and CHAR_LENGTH(missing) are null', () => {
    expect(
      t.run('SELECT VALUE [CHAR_LENGTH(null), CHAR_LENGTH(missing), UPPER(nope)] FROM P WHERE age = 36'),
    ).toEqual(['[null,null,null]']);
  });
});

describe('conditional and scalar functions', () => {
  const t = people();

  // ql-functions.coalesce.html, ql-functions.nullif.html.
  it('COALESCE and NULLIF', () => {
    expect(keys(t.run("SELECT VALUE COALESCE(age, nope, 'none') FROM P"))).toEqual(['"none"', '36', '41']);
    expect(t.run('SELECT VALUE [NULLIF(1, 1), NULLIF(1, 2), NULLIF(7, 7.0)] FROM P WHERE age = 36')).toEqual([
      '[null,1,null]',
    ]);
  });

  // ql-functions.size.html: the number of elements of a container.
  it('SIZE of a list and of a struct, TXID of the transaction', () => {
    expect(
      t.run("SELECT VALUE [SIZE([1, 2, 3]), SIZE({'a': 1}), SIZE(<<1, 2>>)] FROM P WHERE age = 36"),
    ).toEqual(['[3,1,2]']);
    const txn = t.begin();
    expect(t.exec(txn, 'SELECT VALUE TXID() FROM P WHERE age = 36')).toEqual([`"${txn.id}"`]);
  });
});

describe('date and time functions', () => {
  const t = people();

  // ql-functions.extract.html, date_add.html, date_diff.html, to_string.html, to_timestamp.html, utcnow.html.
  it('EXTRACT, DATE_ADD, DATE_DIFF', () => {
    expect(
      t.run(
        'SELECT VALUE [EXTRACT(YEAR FROM born), EXTRACT(MONTH FROM born), EXTRACT(DAY FROM born)] FROM P WHERE age = 36',
      ),
    ).toEqual(['[1815,12,10]']);
    expect(t.run('SELECT VALUE DATE_ADD(day, 30, born) FROM P WHERE age = 36')).toEqual(['1816-01-09T']);
    expect(t.run('SELECT VALUE DATE_ADD(month, 2, `2017-01-31T`) FROM P WHERE age = 36')).toEqual([
      '2017-03-31T',
    ]);
    expect(t.run('SELECT VALUE DATE_DIFF(year, `1815-12-10T`, `1912-06-23T`) FROM P WHERE age = 36')).toEqual(
      ['96'],
    );
    expect(t.run('SELECT VALUE DATE_DIFF(day, `2017-01-10T`, `2017-01-01T`) FROM P WHERE age = 36')).toEqual([
      '-9',
    ]);
  });

  it('TO_STRING and TO_TIMESTAMP with a pattern, and UTCNOW', () => {
    expect(
      t.run(
        "SELECT VALUE TO_STRING(`2007-02-23T12:14:33.079-08:00`, 'MMMM d, y h:m a') FROM P WHERE age = 36",
      ),
    ).toEqual(['"February 23, 2007 12:14 PM"']);
    expect(t.run("SELECT VALUE TO_STRING(born, 'yyyy-MM-dd') FROM P WHERE age = 36")).toEqual([
      '"1815-12-10"',
    ]);
    expect(t.run("SELECT VALUE TO_TIMESTAMP('2007-02-23T12:14:33.079Z')  FROM P WHERE age = 36")).toEqual([
      '2007-02-23T12:14:33.079Z',
    ]);
    expect(t.run("SELECT VALUE TO_TIMESTAMP('2016', 'y') FROM P WHERE age = 36")).toEqual(['2016T']);
    const [now] = t.run('SELECT VALUE UTCNOW() FROM P WHERE age = 36');
    expect(now).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe('CAST', () => {
  const t = people();

  // ql-functions.cast.html.
  it.each([
    ["CAST('12' AS INT)", '12'],
    ['CAST(12.9 AS INT)', '12'],
    ['CAST(7 AS DECIMAL)', '7.'],
    ['CAST(1.5 AS FLOAT)', '1.5e0'],
    ['CAST(7 AS STRING)', '"7"'],
    ["CAST('true' AS BOOL)", 'true'],
    ["CAST('2019-03-01T' AS TIMESTAMP)", '2019-03-01T'],
    ['CAST(null AS INT)', 'null'],
    ["CAST('abc' AS SYMBOL)", 'abc'],
  ])('%s is %s', (expr, expected) => {
    expect(t.run(`SELECT VALUE ${expr} FROM P WHERE age = 36`)).toEqual([expected]);
  });

  it('refuses a cast that cannot be made, and a function QLDB does not list', () => {
    expect(t.refusal("SELECT VALUE CAST('abc' AS INT) FROM P").message).toBe(
      'Semantic Error: at line 1, column 14: Cannot cast STRING to INT',
    );
    expect(t.refusal('SELECT VALUE ABS(age) FROM P').message).toBe(
      'Semantic Error: at line 1, column 14: No such function: abs',
    );
  });
});

function keys(rows: string[]): string[] {
  return [...rows].sort();
}
