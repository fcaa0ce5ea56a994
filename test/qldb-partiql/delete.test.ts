/**
 * DELETE as QLDB documents it: the matching documents are deleted and their ids returned.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.delete.html
 */
import { describe, expect, it } from 'vitest';
import { sampleLedger } from './support';

describe('DELETE', () => {
  // ql-reference.delete.html: "DELETE FROM VehicleRegistration AS r WHERE r.VIN = '...'".
  it('deletes the matching documents and answers their ids', () => {
    const t = sampleLedger();
    const [id] = t.run(
      "SELECT VALUE rid FROM VehicleRegistration AS r BY rid WHERE r.VIN = 'KM8SRDHF6EU074761'",
    );
    expect(t.run("DELETE FROM VehicleRegistration AS r WHERE r.VIN = 'KM8SRDHF6EU074761'")).toEqual([
      `{documentId:${id}}`,
    ]);
    expect(t.run('SELECT VALUE VIN FROM VehicleRegistration')).toEqual(['"1N4AL11D75C109151"']);
  });

  it('deletes by document id with BY, and everything without WHERE', () => {
    const t = sampleLedger();
    const [id] = t.run("SELECT VALUE vid FROM Vehicle AS v BY vid WHERE v.Make = 'Audi'");
    expect(t.run('DELETE FROM Vehicle AS v BY vid WHERE vid = ?', JSON.parse(id))).toHaveLength(1);
    expect(t.run('DELETE FROM Vehicle')).toHaveLength(1);
    expect(t.run('SELECT COUNT(*) FROM Vehicle')).toEqual(['{_1:0}']);
  });

  // The driver's integration test "Throws exception when deleting from a table that doesn't exist".
  it('refuses a table that does not exist', () => {
    const t = sampleLedger();
    expect(t.refusal('DELETE FROM NonExistentTable')).toEqual({
      code: 'BadRequestException',
      message: "Semantic Error: at line 1, column 13: No such variable named 'NonExistentTable'",
    });
  });
});
