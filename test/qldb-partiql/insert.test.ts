/**
 * INSERT as QLDB documents it: a parameter, a struct literal, or a bag of them; each inserted
 * document's id is returned.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.insert.html
 */
import { describe, expect, it } from 'vitest';
import { ion, TestLedger } from './support';

const ID = /^\{documentId:"[A-Za-z0-9]{22}"\}$/;

describe('INSERT', () => {
  // ql-reference.insert.html: "INSERT INTO Vehicle VALUE ?" and "INSERT INTO Vehicle ?".
  it('inserts a parameter, with or without VALUE, and answers the document id', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Vehicle');
    expect(t.run('INSERT INTO Vehicle VALUE ?', { VIN: 'A' })).toEqual([expect.stringMatching(ID)]);
    expect(t.run('INSERT INTO Vehicle ?', { VIN: 'B' })).toEqual([expect.stringMatching(ID)]);
    expect(t.run('SELECT VALUE VIN FROM Vehicle').sort()).toEqual(['"A"', '"B"']);
  });

  // ql-reference.insert.html: a struct literal, and a bag << >> of struct literals or parameters.
  it('inserts a struct literal and a bag of them, keeping each Ion type', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    expect(
      t.run(
        "INSERT INTO T {'a': 1, 'b': 1.0, 'c': `1e0`, 'd': `2019-03-01T`, 'e': `{{aGVsbG8=}}`, 'f': `x::sym`}",
      ),
    ).toHaveLength(1);
    expect(t.run("INSERT INTO T << {'a': 2}, {'a': 3} >>")).toEqual([
      expect.stringMatching(ID),
      expect.stringMatching(ID),
    ]);
    expect(t.run('INSERT INTO T << ?, ? >>', { a: 4 }, { a: 5 })).toHaveLength(2);
    expect(t.run('SELECT VALUE t FROM T AS t WHERE a = 1')).toEqual([
      '{a:1,b:1.0,c:1e0,d:2019-03-01T,e:{{aGVsbG8=}},f:x::sym}',
    ]);
    expect(t.run('SELECT VALUE COUNT(*) FROM T')).toEqual(['5']);
  });

  it('keeps annotations, s-expressions, clobs and typed nulls given as parameters', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    t.run(
      'INSERT INTO T ?',
      ion('{a: ann::(cons 1 2), b: {{"clob"}}, c: null.timestamp, d: 2016-12-20T05:23:43.000000-00:00}'),
    );
    expect(t.run('SELECT * FROM T')).toEqual([
      '{a:ann::(cons 1 2),b:{{"clob"}},c:null.timestamp,d:2016-12-20T05:23:43.000000-00:00}',
    ]);
  });

  it('refuses a value that is not a struct, and a table that does not exist, inserting nothing', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    // A list of documents inserts each (documented-semantics.test.ts); a list of numbers is refused.
    expect(t.refusal('INSERT INTO T ?', [1, 2]).message).toBe(
      'Semantic Error: at line 1, column 15: INSERT INTO T expects a struct or a bag of structs, got int',
    );
    expect(t.refusal('INSERT INTO T ?', 'text').message).toBe(
      'Semantic Error: at line 1, column 15: INSERT INTO T expects a struct or a bag of structs, got string',
    );
    expect(t.refusal("INSERT INTO T << {'a': 1}, 5 >>").code).toBe('BadRequestException');
    expect(t.refusal("INSERT INTO Nope {'a': 1}").message).toBe(
      "Semantic Error: at line 1, column 13: No such variable named 'Nope'",
    );
    expect(t.run('SELECT COUNT(*) FROM T')).toEqual(['{_1:0}']);
  });
});
