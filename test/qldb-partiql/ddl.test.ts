/**
 * CREATE TABLE, DROP TABLE, UNDROP TABLE, CREATE INDEX and DROP INDEX with QLDB's rules, and
 * information_schema.user_tables, as QLDB's reference documents them.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.create-table.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.drop-table.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.undrop-table.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.create-index.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.drop-index.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/working.manage-indexes.html
 */
import { describe, expect, it } from 'vitest';
import { TestLedger } from './support';

const TABLE_ID = /^\{tableId:"([A-Za-z0-9]{22})"\}$/;
const idOf = (row: string) => TABLE_ID.exec(row)?.[1] ?? '';

describe('tables', () => {
  // ql-reference.create-table.html: returns the new table's id; tags WITH (aws_tags = `{...}`).
  it('creates a table (with tags), answering its id, and refuses a second of the same name', () => {
    const t = new TestLedger();
    expect(t.run('CREATE TABLE Vehicle')).toEqual([expect.stringMatching(TABLE_ID)]);
    expect(t.run("CREATE TABLE Tagged WITH (aws_tags = `{'IsTest': 'true'}`)")).toEqual([
      expect.stringMatching(TABLE_ID),
    ]);
    expect(t.refusal('CREATE TABLE Vehicle')).toEqual({
      code: 'BadRequestException',
      message: 'Table with name: Vehicle already exists',
    });
  });

  // ql-reference.drop-table.html: a dropped table is INACTIVE, its name free, its data kept;
  // ql-reference.undrop-table.html: UNDROP TABLE "<tableId>" makes it active again with its documents.
  it('drops a table to INACTIVE and undrops it by id with its documents', () => {
    const t = new TestLedger();
    const id = idOf(t.run('CREATE TABLE Vehicle')[0]);
    t.run("INSERT INTO Vehicle {'VIN': 'A'}");
    expect(t.run('DROP TABLE Vehicle')).toEqual([`{tableId:"${id}"}`]);
    expect(t.run("SELECT VALUE status FROM information_schema.user_tables WHERE name = 'Vehicle'")).toEqual([
      '"INACTIVE"',
    ]);
    expect(t.refusal('SELECT * FROM Vehicle').message).toBe(
      "Semantic Error: at line 1, column 15: No such variable named 'Vehicle'",
    );
    expect(t.run(`UNDROP TABLE "${id}"`)).toEqual([`{tableId:"${id}"}`]);
    expect(t.run('SELECT VALUE VIN FROM Vehicle')).toEqual(['"A"']);
  });

  it('refuses UNDROP while an active table has the name', () => {
    const t = new TestLedger();
    const id = idOf(t.run('CREATE TABLE Vehicle')[0]);
    t.run('DROP TABLE Vehicle');
    t.run('CREATE TABLE Vehicle');
    expect(t.refusal(`UNDROP TABLE "${id}"`).message).toBe(
      'An active table with name Vehicle already exists',
    );
  });

  // Table names: letters, digits and underscores, case-sensitive (working.create.html).
  it('refuses an invalid table name', () => {
    const t = new TestLedger();
    expect(t.refusal('CREATE TABLE _ql_x').message).toMatch(
      /^Semantic Error: at line 1, column 1: Invalid table name _ql_x/,
    );
  });
});

describe('indexes', () => {
  // ql-reference.create-index.html: "An index can only be created on a single top-level field";
  // information_schema.user_tables lists it as expr "[field]".
  it('creates an index on a top-level field, listed in information_schema.user_tables', () => {
    const t = new TestLedger();
    const id = idOf(t.run('CREATE TABLE Vehicle')[0]);
    expect(t.run('CREATE INDEX ON Vehicle (VIN)')).toEqual([`{tableId:"${id}"}`]);
    expect(
      t.run(
        "SELECT VALUE i.expr FROM information_schema.user_tables AS info, info.indexes AS i WHERE info.name = 'Vehicle'",
      ),
    ).toEqual(['"[VIN]"']);
    expect(t.refusal('CREATE INDEX ON Vehicle (Owner.Name)').message).toBe(
      'Parser Error: at line 1, column 26: An index can only be created on a single top-level field',
    );
    expect(t.refusal('CREATE INDEX ON Vehicle (VIN)').message).toBe('Index on Vehicle (VIN) already exists');
    expect(t.refusal('CREATE INDEX ON Nope (VIN)').message).toBe(
      "Semantic Error: at line 1, column 1: No such variable named 'Nope'",
    );
  });

  // ql-reference.create-index.html: indexes serve equality lookups; they may be made on a table
  // that already has documents (the index covers them).
  it('indexes documents already in the table', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Vehicle');
    t.run("INSERT INTO Vehicle << {'VIN': 'A', 'n': 1}, {'VIN': 'B', 'n': 2} >>");
    t.run('CREATE INDEX ON Vehicle (VIN)');
    expect(t.ledger.indexedFields('Vehicle')).toEqual(['VIN']);
    expect(t.run("SELECT VALUE n FROM Vehicle WHERE VIN = 'B'")).toEqual(['2']);
  });

  // ql-reference.drop-index.html: DROP INDEX "<indexId>" ON t WITH (purge = true); purge is required.
  it('drops an index by id, only WITH (purge = true)', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Vehicle');
    t.run('CREATE INDEX ON Vehicle (VIN)');
    const [indexId] = t.run(
      "SELECT VALUE i.indexId FROM information_schema.user_tables AS info, info.indexes AS i WHERE info.name = 'Vehicle'",
    );
    expect(t.refusal(`DROP INDEX ${indexId} ON Vehicle`).message).toBe(
      'Semantic Error: at line 1, column 1: DROP INDEX requires WITH (purge = true)',
    );
    expect(t.run(`DROP INDEX ${indexId} ON Vehicle WITH (purge = true)`)).toEqual([
      expect.stringMatching(TABLE_ID),
    ]);
    expect(t.ledger.indexedFields('Vehicle')).toEqual([]);
  });
});
