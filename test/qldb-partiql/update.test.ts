/**
 * UPDATE ... SET / REMOVE and FROM ... SET / INSERT INTO / REMOVE on nested paths, as QLDB's
 * reference documents them; each changed document's id is returned.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.update.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.from.html
 */
import { describe, expect, it } from 'vitest';
import { sampleLedger } from './support';

const WHERE = "WHERE r.VIN = '1N4AL11D75C109151'";

describe('UPDATE', () => {
  // ql-reference.update.html: "UPDATE VehicleRegistration AS r SET r.City = 'Everett' WHERE ...".
  it('sets top-level and nested fields, creating a field that was not there', () => {
    const t = sampleLedger();
    expect(
      t.run(
        `UPDATE VehicleRegistration AS r SET r.City = 'Everett', r.Owners.PrimaryOwner.PersonId = ?, r.Color = 'Red' ${WHERE}`,
        'P-1',
      ),
    ).toEqual([expect.stringMatching(/^\{documentId:"\w{22}"\}$/)]);
    expect(
      t.run(
        `SELECT r.City, r.Owners.PrimaryOwner.PersonId AS p, r.Color FROM VehicleRegistration AS r ${WHERE}`,
      ),
    ).toEqual(['{City:"Everett",p:"P-1",Color:"Red"}']);
  });

  // ql-reference.update.html: "UPDATE ... REMOVE r.Owners.SecondaryOwners[0]".
  it('removes a field and a list element', () => {
    const t = sampleLedger();
    t.run(`UPDATE VehicleRegistration AS r REMOVE r.Owners.SecondaryOwners[0] ${WHERE}`);
    t.run(`UPDATE VehicleRegistration AS r REMOVE r.ValidToDate ${WHERE}`);
    expect(
      t.run(`SELECT r.Owners.SecondaryOwners AS s, r.ValidToDate FROM VehicleRegistration AS r ${WHERE}`),
    ).toEqual(['{s:[]}']);
  });

  it('updates every document without WHERE and answers nothing when none matches', () => {
    const t = sampleLedger();
    expect(t.run('UPDATE Vehicle SET Checked = true')).toHaveLength(2);
    expect(t.run('SELECT VALUE Checked FROM Vehicle')).toEqual(['true', 'true']);
    expect(t.run("UPDATE Vehicle SET Checked = false WHERE VIN = 'none'")).toEqual([]);
  });

  // UPDATE t SET t = ... is not QLDB syntax: SET takes document elements.
  it('refuses to replace the whole document, changing nothing', () => {
    const t = sampleLedger();
    const r = t.refusal("UPDATE Vehicle AS v SET v = {'VIN': 'x'}");
    expect(r.message).toMatch(/^Semantic Error: at line 1, column 25: A whole document cannot be replaced/);
    expect(t.run('SELECT VALUE COUNT(*) FROM Vehicle WHERE VIN = ?', 'x')).toEqual(['0']);
  });
});

describe('FROM ... SET / INSERT INTO / REMOVE', () => {
  // ql-reference.from.html: "FROM VehicleRegistration AS r WHERE ... INSERT INTO r.Owners.SecondaryOwners VALUE { 'PersonId' : ... }".
  it('inserts into a nested list, at the end or AT a position', () => {
    const t = sampleLedger();
    t.run(
      `FROM VehicleRegistration AS r ${WHERE} INSERT INTO r.Owners.SecondaryOwners VALUE {'PersonId': 'new'}`,
    );
    t.run(
      `FROM VehicleRegistration AS r ${WHERE} INSERT INTO r.Owners.SecondaryOwners VALUE {'PersonId': 'first'} AT 0`,
    );
    expect(t.run(`SELECT VALUE r.Owners.SecondaryOwners FROM VehicleRegistration AS r ${WHERE}`)).toEqual([
      '[{PersonId:"first"},{PersonId:"5Ufgdlnj06gF5CWcOIu64s"},{PersonId:"new"}]',
    ]);
  });

  // ql-reference.from.html: FROM ... SET and FROM ... REMOVE.
  it('sets and removes nested fields', () => {
    const t = sampleLedger();
    t.run(`FROM VehicleRegistration AS r ${WHERE} SET r.Owners.PrimaryOwner.PersonId = 'X'`);
    t.run(`FROM VehicleRegistration AS r ${WHERE} REMOVE r.City`);
    expect(
      t.run(`SELECT r.Owners.PrimaryOwner.PersonId AS p, r.City FROM VehicleRegistration AS r ${WHERE}`),
    ).toEqual(['{p:"X"}']);
  });

  it('adds a struct field with INSERT INTO ... AT its name, and refuses one that exists', () => {
    const t = sampleLedger();
    t.run(`FROM VehicleRegistration AS r ${WHERE} INSERT INTO r.Owners VALUE 'note' AT 'Note'`);
    expect(t.run(`SELECT VALUE r.Owners.Note FROM VehicleRegistration AS r ${WHERE}`)).toEqual(['"note"']);
    expect(
      t.refusal(`FROM VehicleRegistration AS r ${WHERE} INSERT INTO r.Owners VALUE 1 AT 'Note'`).message,
    ).toMatch(/The field 'Note' already exists/);
  });
});
