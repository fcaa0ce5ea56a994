/**
 * WHERE and the operators QLDB's PartiQL reference lists: comparisons (across Ion's numeric types),
 * IN, BETWEEN, LIKE ... ESCAPE, IS [NOT] NULL, IS [NOT] MISSING, AND, OR, NOT, EXISTS, arithmetic
 * and ||, with PartiQL's NULL and MISSING propagation.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-operators.html
 */
import { describe, expect, it } from 'vitest';
import { ion, TestLedger } from './support';

function numbers(): TestLedger {
  const t = new TestLedger();
  t.run('CREATE TABLE Nums');
  t.run(
    "INSERT INTO Nums << {'k': 'int', 'n': 7}, {'k': 'decimal', 'n': 7.0}, {'k': 'float', 'n': `7e0`}, {'k': 'neg', 'n': -7}, {'k': 'big', 'n': 12.5}, {'k': 'null', 'n': null}, {'k': 'missing'} >>",
  );
  return t;
}

const keys = (rows: string[]) => rows.map((r) => JSON.parse(r)).sort();

describe('comparison operators', () => {
  const t = numbers();

  // ql-operators.html, comparison operators; PartiQL compares numbers by value across types.
  it.each([
    ['n = 7', ['decimal', 'float', 'int']],
    ['n = 7.00', ['decimal', 'float', 'int']],
    ['n <> 7', ['big', 'neg']],
    ['n != 7', ['big', 'neg']],
    ['n < 7', ['neg']],
    ['n <= 7', ['decimal', 'float', 'int', 'neg']],
    ['n > 7e0', ['big']],
    ['n >= 12.5', ['big']],
  ])('WHERE %s', (cond, expected) => {
    expect(keys(t.run(`SELECT VALUE k FROM Nums WHERE ${cond}`))).toEqual(expected);
  });

  it('compares with a parameter of any numeric type', () => {
    expect(keys(t.run('SELECT VALUE k FROM Nums WHERE n = ?', ion('7d0')))).toEqual([
      'decimal',
      'float',
      'int',
    ]);
  });

  // ql-operators.html, logical operators; NULL and MISSING are never equal to anything.
  it('AND, OR and NOT, a null or missing field matching neither = nor <>', () => {
    expect(keys(t.run("SELECT VALUE k FROM Nums WHERE n = 7 AND NOT k = 'int'"))).toEqual([
      'decimal',
      'float',
    ]);
    expect(keys(t.run("SELECT VALUE k FROM Nums WHERE k = 'neg' OR n > 10"))).toEqual(['big', 'neg']);
    expect(keys(t.run('SELECT VALUE k FROM Nums WHERE NOT (n = 7)'))).toEqual(['big', 'neg']);
  });
});

describe('IN, BETWEEN, LIKE', () => {
  const t = numbers();

  // ql-operators.html: IN with a list of values (an indexed lookup when the field is indexed).
  it('IN and NOT IN', () => {
    expect(keys(t.run("SELECT VALUE k FROM Nums WHERE k IN ('int', 'neg', 'nope')"))).toEqual(['int', 'neg']);
    expect(keys(t.run('SELECT VALUE k FROM Nums WHERE k IN (?, ?)', 'big', 'float'))).toEqual([
      'big',
      'float',
    ]);
    expect(keys(t.run('SELECT VALUE k FROM Nums WHERE n NOT IN (7, 12.5)'))).toEqual(['neg']);
  });

  // ql-operators.html: BETWEEN is inclusive.
  it('BETWEEN and NOT BETWEEN', () => {
    expect(keys(t.run('SELECT VALUE k FROM Nums WHERE n BETWEEN -7 AND 7'))).toEqual([
      'decimal',
      'float',
      'int',
      'neg',
    ]);
    expect(keys(t.run('SELECT VALUE k FROM Nums WHERE n NOT BETWEEN 0 AND 10'))).toEqual(['big', 'neg']);
  });

  // ql-operators.html: LIKE with % and _, and ESCAPE for a literal wildcard.
  it('LIKE with % and _, NOT LIKE, and ESCAPE', () => {
    expect(keys(t.run("SELECT VALUE k FROM Nums WHERE k LIKE '%i%'"))).toEqual([
      'big',
      'decimal',
      'int',
      'missing',
    ]);
    expect(keys(t.run("SELECT VALUE k FROM Nums WHERE k LIKE '_n_'"))).toEqual(['int']);
    expect(keys(t.run("SELECT VALUE k FROM Nums WHERE k NOT LIKE '%i%'"))).toEqual(['float', 'neg', 'null']);
    const s = new TestLedger();
    s.run('CREATE TABLE S');
    s.run("INSERT INTO S << {'v': '100%'}, {'v': '1000'}, {'v': 'a_b'}, {'v': 'axb'} >>");
    expect(s.run("SELECT VALUE v FROM S WHERE v LIKE '100!%' ESCAPE '!'")).toEqual(['"100%"']);
    expect(s.run("SELECT VALUE v FROM S WHERE v LIKE 'a\\_b' ESCAPE '\\'")).toEqual(['"a_b"']);
  });
});

describe('IS [NOT] NULL and IS [NOT] MISSING', () => {
  const t = numbers();

  // ql-operators.html: IS NULL is true for null and for a missing field; IS MISSING only for missing.
  it.each([
    ['n IS NULL', ['missing', 'null']],
    ['n IS NOT NULL', ['big', 'decimal', 'float', 'int', 'neg']],
    ['n IS MISSING', ['missing']],
    ['n IS NOT MISSING', ['big', 'decimal', 'float', 'int', 'neg', 'null']],
  ])('WHERE %s', (cond, expected) => {
    expect(keys(t.run(`SELECT VALUE k FROM Nums WHERE ${cond}`))).toEqual(expected);
  });

  it('finds a typed null (null.int) with IS NULL, and returns it with its type', () => {
    const s = new TestLedger();
    s.run('CREATE TABLE T');
    s.run('INSERT INTO T ?', ion('{v: null.int}'));
    expect(s.run('SELECT VALUE v FROM T WHERE v IS NULL')).toEqual(['null.int']);
  });
});

describe('EXISTS, arithmetic and ||', () => {
  // ql-functions.exists.html: EXISTS of a subquery (or a collection) is true when it is not empty.
  it('EXISTS over a correlated subquery', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE R');
    t.run("INSERT INTO R << {'id': 1, 'owners': [{'n': 'a'}]}, {'id': 2, 'owners': []} >>");
    expect(t.run('SELECT VALUE id FROM R AS r WHERE EXISTS (SELECT * FROM r.owners AS o)')).toEqual(['1']);
    expect(t.run('SELECT VALUE id FROM R AS r WHERE NOT EXISTS (SELECT * FROM r.owners AS o)')).toEqual([
      '2',
    ]);
  });

  // ql-operators.html, arithmetic: int with int stays int, with a decimal it is a decimal, with a float a float.
  it('keeps the numeric type through arithmetic, and concatenates strings', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE A');
    t.run("INSERT INTO A {'i': 7, 'd': 1.50, 'f': `2e0`, 's': 'ab'}");
    expect(t.run("SELECT VALUE [i + 1, i * d, d - 0.25, i / 2, i % 4, f * i, -i, s || 'c'] FROM A")).toEqual([
      '[8,10.50,1.25,3,3,1.4e1,-7,"abc"]',
    ]);
  });

  it('propagates NULL and MISSING through arithmetic, and refuses arithmetic on a string', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE A');
    t.run("INSERT INTO A {'i': 7, 'z': null, 's': 'x'}");
    expect(t.run('SELECT i + z AS a, i + nope AS b FROM A')).toEqual(['{a:null}']);
    expect(t.refusal('SELECT VALUE i + s FROM A')).toEqual({
      code: 'BadRequestException',
      message: 'Semantic Error: at line 1, column 16: + expects numbers, got INT and STRING',
    });
  });
});
