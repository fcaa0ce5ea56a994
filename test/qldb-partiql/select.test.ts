/**
 * SELECT as QLDB's PartiQL reference documents it: projections, SELECT VALUE, aliases, nested paths
 * and list indexes, the BY document-id clause, FROM over nested lists (unnesting) and inner joins,
 * and the clauses QLDB did not support.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.select.html
 */
import { describe, expect, it } from 'vitest';
import { sampleLedger } from './support';

describe('SELECT', () => {
  const t = sampleLedger();

  // ql-reference.select.html: "SELECT * FROM Vehicle" returns whole documents.
  it('returns whole documents for SELECT *', () => {
    const rows = t.run("SELECT * FROM Vehicle WHERE VIN = '1N4AL11D75C109151'");
    expect(rows).toEqual([
      '{VIN:"1N4AL11D75C109151",Type:"Sedan",Year:2011,Make:"Audi",Model:"A5",Color:"Silver"}',
    ]);
  });

  // ql-reference.select.html: projections with aliases, AS optional.
  it('projects fields, with and without aliases', () => {
    expect(t.run("SELECT v.Make AS m, v.Year FROM Vehicle AS v WHERE v.VIN = 'KM8SRDHF6EU074761'")).toEqual([
      '{m:"Tesla",Year:2015}',
    ]);
    expect(t.run("SELECT Make m FROM Vehicle v WHERE VIN = 'KM8SRDHF6EU074761'")).toEqual(['{m:"Tesla"}']);
  });

  // ql-reference.select.html: SELECT VALUE returns the values themselves, not structs.
  it('returns bare values for SELECT VALUE', () => {
    expect(t.run("SELECT VALUE v.Year FROM Vehicle AS v WHERE v.Make = 'Audi'")).toEqual(['2011']);
  });

  // ql-reference.select.html, "nested fields and list indexes": r.Owners.PrimaryOwner.PersonId,
  // r.Owners.SecondaryOwners[0].PersonId.
  it('reads nested paths and list indexes', () => {
    expect(
      t.run(
        "SELECT r.Owners.PrimaryOwner.PersonId AS p, r.Owners.SecondaryOwners[0].PersonId AS s FROM VehicleRegistration AS r WHERE r.VIN = '1N4AL11D75C109151'",
      ),
    ).toEqual(['{p:"294jJ3YUoH1IEEm8GSabOs",s:"5Ufgdlnj06gF5CWcOIu64s"}']);
    // A missing path element is MISSING: the field is left out of the projection.
    expect(
      t.run(
        "SELECT r.VIN, r.Owners.SecondaryOwners[0].PersonId AS s FROM VehicleRegistration AS r WHERE r.VIN = 'KM8SRDHF6EU074761'",
      ),
    ).toEqual(['{VIN:"KM8SRDHF6EU074761"}']);
  });

  // ql-reference.select.html: "FROM VehicleRegistration AS r BY rid" binds the document id.
  it('binds the document id with BY, and finds a document by it', () => {
    const [id] = t.run(
      "SELECT VALUE rid FROM VehicleRegistration AS r BY rid WHERE r.VIN = 'KM8SRDHF6EU074761'",
    );
    expect(id).toMatch(/^"[A-Za-z0-9]{22}"$/);
    expect(
      t.run('SELECT VALUE r.City FROM VehicleRegistration AS r BY rid WHERE rid = ?', JSON.parse(id)),
    ).toEqual(['"Kent"']);
  });

  // ql-reference.select.html, "unnesting": FROM t AS r, r.Owners.SecondaryOwners AS o.
  it('unnests a nested list in FROM, with AT for the position', () => {
    expect(
      t.run('SELECT r.VIN, o.PersonId, i FROM VehicleRegistration AS r, r.Owners.SecondaryOwners AS o AT i'),
    ).toEqual(['{VIN:"1N4AL11D75C109151",PersonId:"5Ufgdlnj06gF5CWcOIu64s",i:0}']);
  });

  // ql-reference.select.html, "joins": QLDB supports inner joins (comma with WHERE, or INNER JOIN ... ON).
  it('joins tables with INNER JOIN ... ON and with a comma and WHERE', () => {
    const expected = ['{City:"Kent",Make:"Tesla"}', '{City:"Seattle",Make:"Audi"}'];
    const joined = t.run(
      'SELECT r.City, v.Make FROM VehicleRegistration AS r INNER JOIN Vehicle AS v ON r.VIN = v.VIN',
    );
    expect([...joined].sort()).toEqual(expected);
    const comma = t.run(
      'SELECT r.City, v.Make FROM VehicleRegistration AS r, Vehicle AS v WHERE r.VIN = v.VIN',
    );
    expect([...comma].sort()).toEqual(expected);
  });

  // ql-reference.html, "Use only inner joins": outer joins are refused.
  it('refuses outer joins', () => {
    const r = t.refusal('SELECT * FROM VehicleRegistration AS r LEFT JOIN Vehicle AS v ON r.VIN = v.VIN');
    expect(r.code).toBe('BadRequestException');
    expect(r.message).toMatch(/^Parser Error: at line 1, column \d+: LEFT JOIN is not supported/);
  });

  // QLDB did not support ORDER BY ("Currently QLDB does not support the ORDER BY clause", re:Post,
  // pointing at ql-reference.html) nor GROUP BY.
  it.each([
    ['SELECT * FROM Vehicle ORDER BY Year', 'ORDER BY', 23],
    ['SELECT Make FROM Vehicle GROUP BY Make', 'GROUP BY', 26],
  ])('refuses %s, naming the line and column', (text, clause, column) => {
    const r = t.refusal(text);
    expect(r).toEqual({
      code: 'BadRequestException',
      message: `Parser Error: at line 1, column ${column}: ${clause} is not supported by Amazon QLDB`,
    });
  });

  // ql-reference.select.html: quoted identifiers keep their case; table names are case-sensitive.
  it('reads a table named in quotes and refuses a name of the wrong case', () => {
    expect(t.run('SELECT VALUE "Year" FROM "Vehicle" WHERE "Make" = \'Tesla\'')).toEqual(['2015']);
    expect(t.refusal('SELECT * FROM vehicle').message).toBe(
      "Semantic Error: at line 1, column 15: No such variable named 'vehicle'",
    );
  });

  // PartiQL DISTINCT (ql-reference.select.html syntax: SELECT [ VALUE | DISTINCT ] ...).
  it('removes duplicates with DISTINCT', () => {
    expect(t.run('SELECT DISTINCT VALUE v.Type FROM Vehicle AS v')).toEqual(['"Sedan"']);
  });
});
