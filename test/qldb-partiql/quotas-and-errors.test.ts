/**
 * QLDB's fixed quotas per ledger, and its errors: parser errors name the line and column, semantic
 * errors the missing table or field, and a refused statement changes nothing while the transaction
 * stays usable. QLDB documents the quotas, not their error texts: the messages are the lab's.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/limits.html#limits.fixed
 */
import { describe, expect, it } from 'vitest';
import { QLDB_QUOTAS } from '../../targets/qldb/engine/ledger';
import { TestLedger } from './support';

describe('quotas', () => {
  // limits.html: "Number of active tables 20", "Total number of tables (active and inactive) 40".
  it('allows 20 active tables and 40 in all, dropped ones counted', () => {
    const t = new TestLedger();
    for (let i = 0; i < QLDB_QUOTAS.activeTables; i++) t.run(`CREATE TABLE T${i}`);
    expect(t.refusal('CREATE TABLE Over').message).toBe(
      'The ledger has reached the limit of 20 active tables',
    );
    for (let i = 0; i < QLDB_QUOTAS.activeTables; i++) t.run(`DROP TABLE T${i}`);
    for (let i = 0; i < QLDB_QUOTAS.activeTables; i++) t.run(`CREATE TABLE U${i}`);
    expect(t.refusal('CREATE TABLE Over').message).toMatch(/limit of 20 active tables/);
    t.run('DROP TABLE U0');
    expect(t.refusal('CREATE TABLE Over').message).toBe(
      'The ledger has reached the limit of 40 tables, active and inactive (dropped tables count)',
    );
  });

  // limits.html: "Number of indexes per table 5".
  it('allows 5 indexes per table', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    for (const f of ['a', 'b', 'c', 'd', 'e']) t.run(`CREATE INDEX ON T (${f})`);
    expect(t.refusal('CREATE INDEX ON T (f)').message).toBe(
      'Table T already has 5 indexes, the limit per table',
    );
  });

  // limits.html: "Document size (encoded as Ion binary) 128 KB".
  it('refuses a document over 128 KB as Ion binary, inserting nothing', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    t.run('INSERT INTO T ?', { s: 'x'.repeat(120 * 1024) });
    const r = t.refusal('INSERT INTO T ?', { s: 'x'.repeat(129 * 1024) });
    expect(r.code).toBe('BadRequestException');
    expect(r.message).toMatch(/over the limit of 131072 bytes per document$/);
    expect(t.run('SELECT VALUE COUNT(*) FROM T')).toEqual(['1']);
  });

  // limits.html: "Transaction size 4 MB".
  it('refuses a statement that takes the transaction past 4 MB, keeping what it held', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    const txn = t.begin();
    const big = { s: 'x'.repeat(120 * 1024) };
    for (let i = 0; i < 34; i++) t.exec(txn, 'INSERT INTO T ?', big);
    expect(() => t.exec(txn, 'INSERT INTO T ?', big)).toThrow(
      /exceeds the limit of 4194304 bytes per transaction/,
    );
    t.ledger.commit(txn, Date.now());
    expect(t.run('SELECT VALUE COUNT(*) FROM T')).toEqual(['34']);
  });

  // limits.html: "Number of documents in a transaction 40".
  it('refuses the 41st document of a transaction', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    const txn = t.begin();
    for (let i = 0; i < 40; i++) t.exec(txn, 'INSERT INTO T ?', { i });
    expect(() => t.exec(txn, 'INSERT INTO T ?', { i: 40 })).toThrow(/limit of 40 documents/);
  });
});

describe('errors', () => {
  // ql-reference.html: errors are BadRequestException; the parser names line and column.
  it.each([
    ['SELECT * FROM T WHERE', 'Parser Error: at line 1, column 22: Unexpected end of statement'],
    ['SELECT * FROM T\nWHERE a = = 1', "Parser Error: at line 2, column 11: Unexpected token '='"],
    [
      'SELECT * FROM T WHERE a = "unterminated',
      'Parser Error: at line 1, column 27: unterminated quoted identifier',
    ],
    ['UPSERT INTO T ?', "Parser Error: at line 1, column 1: Unexpected token 'UPSERT'"],
    ['SELECT * FROM Nope', "Semantic Error: at line 1, column 15: No such variable named 'Nope'"],
    [
      'SELECT * FROM T AS t, Nope AS n',
      "Semantic Error: at line 1, column 23: No such variable named 'Nope'",
    ],
  ])('%s', (text, message) => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    t.run("INSERT INTO T {'a': 1}");
    expect(t.refusal(text)).toEqual({ code: 'BadRequestException', message });
  });

  it('a refused statement changes nothing and the transaction stays usable', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE T');
    const txn = t.begin();
    t.exec(txn, "INSERT INTO T {'a': 1}");
    // The second document is not a struct: the whole statement is refused, its first document too.
    expect(() => t.exec(txn, "INSERT INTO T << {'a': 2}, 3 >>")).toThrow(/expects a struct/);
    t.exec(txn, "INSERT INTO T {'a': 4}");
    t.ledger.commit(txn, Date.now());
    expect(t.run('SELECT VALUE a FROM T').sort()).toEqual(['1', '4']);
  });
});
