/**
 * QLDB's PartiQL as its developer guide documents it, one case per documented example that the
 * engine once answered differently. Each case names the page (under
 * https://docs.aws.amazon.com/qldb/latest/developerguide/) and quotes what it says.
 */
import { dom } from 'ion-js';
import { describe, expect, it } from 'vitest';
import { TestLedger } from './support';

/** One row to evaluate expressions over, as the pages' `FROM << 0 >>` does. */
function one(): TestLedger {
  const t = new TestLedger();
  t.run('CREATE TABLE One');
  t.run("INSERT INTO One {'k': 1}");
  return t;
}

const value = (t: TestLedger, expr: string) => t.run(`SELECT VALUE ${expr} FROM One`);

describe('functions', () => {
  const t = one();

  it.each([
    // ql-functions.date_add.html: "DATE_ADD(second, 1, `2017-01-02T03:04:05.006Z`) -- 2017-01-02T03:04:06.006Z".
    ['DATE_ADD(second, 1, `2017-01-02T03:04:05.006Z`)', '2017-01-02T03:04:06.006Z'],
    // The carry into the minute, hour and day: 59.5 s + 1 s.
    ['DATE_ADD(second, 1, `2017-12-31T23:59:59.5Z`)', '2018-01-01T00:00:00.5Z'],
    ['DATE_ADD(second, -6, `2017-01-02T03:04:05Z`)', '2017-01-02T03:03:59Z'],
    // ql-functions.date_diff.html: "DATE_DIFF(month, `2010-12-31T`, `2011-01-01T`) -- 0 (must be at
    // least a full month apart to evaluate as a 1 month difference)", and its other examples.
    ['DATE_DIFF(month, `2010-12-31T`, `2011-01-01T`)', '0'],
    ['DATE_DIFF(year, `2010-12T`, `2011-01T`)', '0'],
    ['DATE_DIFF(month, `2010T`, `2010-05T`)', '4'],
    ['DATE_DIFF(month, `2011T`, `2010T`)', '-12'],
    ['DATE_DIFF(day, `2010-01-01T23:00Z`, `2010-01-02T01:00Z`)', '0'],
    // ql-functions.to_string.html: "TO_STRING(`1969-07-20T20:18+08:00`, 'y-MM-dd''T''H:m:ssXXXX') --
    // "1969-07-20T20:18:00+0800"" and with XXXXX "+08:00".
    ["TO_STRING(`1969-07-20T20:18+08:00`, 'y-MM-dd''T''H:m:ssXXXX')", '"1969-07-20T20:18:00+0800"'],
    ["TO_STRING(`1969-07-20T20:18+08:00`, 'y-MM-dd''T''H:m:ssXXXXX')", '"1969-07-20T20:18:00+08:00"'],
    // ql-functions.to_timestamp.html: "1900 is added to values greater than or equal to 70, and 2000
    // is added to values less than 70."
    ["TO_TIMESTAMP('99', 'yy')", '1999T'],
    ["TO_TIMESTAMP('69', 'yy')", '2069T'],
    ["TO_TIMESTAMP('70', 'yy')", '1970T'],
    // ql-functions.exists.html: "EXISTS(`[]`) -- false", "EXISTS(`[1, 2, 3]`) -- true",
    // "EXISTS(`{ a: 1 }`) -- true", "EXISTS(`()`) -- false", "EXISTS(1) -- false", "EXISTS(null) -- false".
    ['EXISTS(`[]`)', 'false'],
    ['EXISTS(`[1, 2, 3]`)', 'true'],
    ['EXISTS(`{ a: 1 }`)', 'true'],
    ['EXISTS(`{}`)', 'false'],
    ['EXISTS(`()`)', 'false'],
    ['EXISTS(`(+ 1 2)`)', 'true'],
    ['EXISTS(1)', 'false'],
    ['EXISTS(null)', 'false'],
  ])('%s is %s', (expr, expected) => {
    expect(value(t, expr)).toEqual([expected]);
  });

  // ql-functions.timestamp-format.html lists S as fraction-of-second; like Java's formatter it has at
  // most 9 digits, and a longer run is the statement's error (it once failed inside the engine).
  it('TO_STRING refuses more than 9 fraction digits', () => {
    expect(t.refusal(`SELECT VALUE TO_STRING(\`2017T\`, '${'S'.repeat(200)}') FROM One`).message).toMatch(
      /^Semantic Error: at line 1, column 14: TO_STRING: at most 9 fraction digits \(S\), got 200$/,
    );
  });

  // ql-functions.exists.html: "EXISTS(missing) -- error".
  it('EXISTS(missing) is an error', () => {
    expect(t.refusal('SELECT VALUE EXISTS(missing) FROM One').message).toMatch(
      /^Semantic Error: at line 1, column 14: EXISTS of MISSING is an error/,
    );
  });
});

describe('CAST', () => {
  const t = one();

  it.each([
    // ql-functions.cast.html: "CAST('a' AS boolean) -- false", "CAST('true' AS boolean) -- true".
    ["CAST('a' AS BOOLEAN)", 'false'],
    ["CAST('TRUE' AS BOOLEAN)", 'true'],
    // "CAST(missing AS null) -- null", "CAST(null AS missing) -- missing" (a result bag holds null).
    ['CAST(missing AS NULL)', 'null'],
    ['[CAST(null AS MISSING)]', '[null]'],
    // A SQL number in a string casts to a decimal.
    ["CAST('1.50' AS DECIMAL)", '1.50'],
    ["CAST('-2e3' AS DECIMAL)", '-2d3'],
  ])('%s is %s', (expr, expected) => {
    expect(value(t, expr)).toEqual([expected]);
  });

  // ql-functions.cast.html: "Any value that is not an unknown type can't be cast to NULL or
  // MISSING. ... CAST(1 AS null) -- error".
  it.each(['CAST(1 AS NULL)', 'CAST(true AS MISSING)', "CAST('abc' AS DECIMAL)"])(
    '%s is an error',
    (expr) => {
      expect(t.refusal(`SELECT VALUE ${expr} FROM One`).message).toMatch(
        /^Semantic Error: at line 1, column 14: Cannot cast (INT|BOOL|STRING) to (NULL|MISSING|DECIMAL)$/,
      );
    },
  );
});

describe('INSERT', () => {
  // getting-started.nodejs.step-3.html: the tutorial inserts its sample data with
  // `INSERT INTO ${tableName} ?` and a list of documents as the one parameter.
  it('inserts each document of a list given as the parameter', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Person');
    const ids = t.run('INSERT INTO Person ?', [{ GovId: 'A' }, { GovId: 'B' }, { GovId: 'C' }]);
    expect(ids).toHaveLength(3);
    expect(t.run('SELECT VALUE GovId FROM Person').sort()).toEqual(['"A"', '"B"', '"C"']);
  });

  it('refuses a list holding something other than documents, inserting nothing', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Person');
    expect(t.refusal('INSERT INTO Person ?', [{ GovId: 'A' }, 7]).message).toMatch(
      /expects a struct or a bag of structs, got int/,
    );
    expect(t.run('SELECT VALUE COUNT(*) FROM Person')).toEqual(['0']);
  });
});

/** A document inserted, updated, then deleted, each committed at the given instant. */
function threeRevisions(): { t: TestLedger; tableId: string } {
  const t = new TestLedger();
  const [created] = t.run('CREATE TABLE Vehicle');
  const tableId = (dom.load(created) as dom.Value).get('tableId')?.stringValue() ?? '';
  const at = (statement: string, iso: string) => {
    const txn = t.begin();
    t.exec(txn, statement);
    t.ledger.commit(txn, Date.parse(iso));
  };
  at("INSERT INTO Vehicle {'VIN': 'A', 'Color': 'Red'}", '2019-06-01T00:00:00Z');
  at("UPDATE Vehicle SET Color = 'Blue' WHERE VIN = 'A'", '2019-06-05T12:00:00Z');
  at("DELETE FROM Vehicle WHERE VIN = 'A'", '2019-06-10T00:00:00Z');
  return { t, tableId };
}

describe('history()', () => {
  // working.history.html: "history( table_name | 'table_id' [, `start-time` [, `end-time` ] ] )":
  // "A table ID is a string literal that must be enclosed in single quotation marks."
  it("takes a table's id as well as its name, and still finds the table once dropped", () => {
    const { t, tableId } = threeRevisions();
    expect(t.run(`SELECT VALUE COUNT(*) FROM history('${tableId}') AS h`)).toEqual(['3']);
    t.run('DROP TABLE Vehicle');
    expect(t.run(`SELECT VALUE COUNT(*) FROM history('${tableId}') AS h`)).toEqual(['3']);
    expect(t.refusal("SELECT * FROM history('NoSuchTableId00000000') AS h").message).toMatch(
      /No such table with id 'NoSuchTableId00000000'/,
    );
  });

  // working.history.html: start-time and end-time "specifies the time range during which any
  // revisions were active. These parameters don't specify the time range during which revisions
  // were committed to the journal": "if a revision was committed before [the start time] and remained
  // active after that start time, this example query returns that revision in the results."
  it('selects the revisions that were current during [start, end], not those committed in it', () => {
    const { t } = threeRevisions();
    const versions = (range: string) =>
      t.run(`SELECT VALUE h.metadata.version FROM history(Vehicle, ${range}) AS h`).sort();
    // The page's example range: version 0 was committed before it and still current at its start.
    expect(versions('`2019-06-05T00:00:00Z`, `2019-06-05T23:59:59Z`')).toEqual(['0', '1']);
    // Inside version 0's lifetime, although nothing was committed then.
    expect(versions('`2019-06-02T`, `2019-06-03T`')).toEqual(['0']);
    // Both bounds are inclusive: the instant of the update belongs to version 1 only.
    expect(versions('`2019-06-05T12:00:00Z`, `2019-06-05T12:00:00Z`')).toEqual(['1']);
    // With a start and no end: everything current from the start on (the deletion included).
    expect(versions('`2019-06-06T`')).toEqual(['1', '2']);
    expect(versions('`2019-05-01T`, `2019-05-31T`')).toEqual([]);
  });
});

describe('FROM ... nested sources and REMOVE of a whole document', () => {
  function registrations(): TestLedger {
    const t = new TestLedger();
    t.run('CREATE TABLE VehicleRegistration');
    t.run(
      `INSERT INTO VehicleRegistration << { 'VIN': 'V1', 'Owners': { 'SecondaryOwners': [
        { 'PersonId': 'abc123' }, { 'PersonId': 'keep' } ] } }, { 'VIN': 'V2', 'Owners': { 'SecondaryOwners': [] } } >>`,
    );
    return t;
  }

  // ql-reference.from.html, nested collections: "FROM VehicleRegistration r, @r.Owners.SecondaryOwners o
  // WHERE r.VIN = '1N4AL11D75C109151' AND o.PersonId = 'abc123' SET o.PersonId = 'def456'" updates the
  // element of the list that has that PersonId.
  it('updates the element of a nested list that a nested source is bound to', () => {
    const t = registrations();
    const changed = t.run(
      "FROM VehicleRegistration AS r, @r.Owners.SecondaryOwners AS o WHERE r.VIN = 'V1' AND o.PersonId = 'abc123' SET o.PersonId = 'def456'",
    );
    expect(changed).toHaveLength(1);
    expect(
      t.run("SELECT VALUE r.Owners.SecondaryOwners FROM VehicleRegistration AS r WHERE r.VIN = 'V1'"),
    ).toEqual(['[{PersonId:"def456"},{PersonId:"keep"}]']);
  });

  it('removes the element a nested source is bound to, and UPDATE takes nested sources too', () => {
    const t = registrations();
    t.run(
      "UPDATE VehicleRegistration AS r, @r.Owners.SecondaryOwners AS o REMOVE o WHERE r.VIN = 'V1' AND o.PersonId = 'abc123'",
    );
    expect(
      t.run("SELECT VALUE r.Owners.SecondaryOwners FROM VehicleRegistration AS r WHERE r.VIN = 'V1'"),
    ).toEqual(['[{PersonId:"keep"}]']);
  });

  // ql-reference.from.html, FROM-REMOVE: "Remove an existing element within a document, or remove an
  // entire top-level document. The latter is semantically the same as the traditional DELETE syntax."
  it('REMOVE of the table alias removes the whole document, as DELETE does', () => {
    const t = registrations();
    const removed = t.run("FROM VehicleRegistration AS v WHERE v.VIN = 'V2' REMOVE v");
    expect(removed).toHaveLength(1);
    expect(t.run('SELECT VALUE VIN FROM VehicleRegistration')).toEqual(['"V1"']);
    const [revision] = t.run(
      'SELECT VALUE h FROM history(VehicleRegistration) AS h WHERE h.metadata.version = 1',
    );
    expect((dom.load(revision) as dom.Value).get('data')).toBeNull();
  });

  it('still refuses SET of the whole document', () => {
    const t = registrations();
    expect(
      t.refusal("FROM VehicleRegistration AS v WHERE v.VIN = 'V2' SET v = {'VIN': 'x'}").message,
    ).toMatch(/A whole document cannot be replaced/);
  });
});
