/**
 * The history() function and the committed view, with each revision's metadata (id, version,
 * txId, txTime), block address and hash.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/working.history.html
 * https://docs.aws.amazon.com/qldb/latest/developerguide/working.metadata.html
 */
import { dom } from 'ion-js';
import { describe, expect, it } from 'vitest';
import { TestLedger } from './support';

function withRevisions(): { t: TestLedger; id: string } {
  const t = new TestLedger();
  t.run('CREATE TABLE Vehicle');
  const [row] = t.run("INSERT INTO Vehicle {'VIN': 'A', 'Color': 'Red'}");
  t.run("UPDATE Vehicle SET Color = 'Blue' WHERE VIN = 'A'");
  t.run("DELETE FROM Vehicle WHERE VIN = 'A'");
  return { t, id: (dom.load(row) as dom.Value).get('documentId')?.stringValue() ?? '' };
}

describe('history()', () => {
  // working.history.html: "SELECT * FROM history(VehicleRegistration) AS h WHERE h.metadata.id = '...'"
  // returns every revision: blockAddress, hash, data and metadata; a deleted document's last
  // revision has metadata and no data.
  it('returns every revision of a document, the deletion last with no data', () => {
    const { t, id } = withRevisions();
    const revisions = t
      .run('SELECT * FROM history(Vehicle) AS h WHERE h.metadata.id = ?', id)
      .map((r) => dom.load(r) as dom.Value);
    expect(revisions.map((r) => r.get('metadata', 'version')?.numberValue())).toEqual([0, 1, 2]);
    expect(revisions.map((r) => r.get('data', 'Color')?.stringValue() ?? null)).toEqual([
      'Red',
      'Blue',
      null,
    ]);
    for (const r of revisions) {
      expect(r.get('metadata', 'id')?.stringValue()).toBe(id);
      expect(r.get('metadata', 'txId')?.stringValue()).toMatch(/^txn\d+$/);
      expect(r.get('metadata', 'txTime')?.getType().name).toBe('timestamp');
      expect(r.get('blockAddress', 'strandId')?.stringValue()).toMatch(/^[A-Za-z0-9]{22}$/);
      expect(r.get('blockAddress', 'sequenceNo')?.getType().name).toBe('int');
      expect(r.get('hash')?.uInt8ArrayValue()).toHaveLength(32);
    }
  });

  // working.history.html: history(table, start-time, end-time) selects the revisions current at some
  // time in the range (documented-semantics.test.ts checks inside a revision's lifetime).
  it('bounds revisions by start and end time', () => {
    const { t } = withRevisions();
    expect(t.run('SELECT VALUE COUNT(*) FROM history(Vehicle, `2000T`, `2001T`) AS h')).toEqual(['0']);
    expect(t.run('SELECT VALUE COUNT(*) FROM history(Vehicle, `2000T`) AS h')).toEqual(['3']);
  });
});

describe('the committed view', () => {
  // working.metadata.html: "SELECT * FROM _ql_committed_VehicleRegistration" returns the current
  // committed revisions with blockAddress, hash, data and metadata.
  it('shows current revisions with their metadata, and is read-only', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Vehicle');
    t.run("INSERT INTO Vehicle {'VIN': 'A'}");
    t.run("UPDATE Vehicle SET VIN = 'B'");
    expect(t.run('SELECT r.data.VIN, r.metadata.version FROM _ql_committed_Vehicle AS r')).toEqual([
      '{VIN:"B",version:1}',
    ]);
    expect(t.refusal('UPDATE _ql_committed_Vehicle SET x = 1').message).toMatch(
      /_ql_committed_Vehicle is read-only/,
    );
  });

  it('finds a document id through the committed view, as the developer guide shows', () => {
    const t = new TestLedger();
    t.run('CREATE TABLE Vehicle');
    t.run("INSERT INTO Vehicle {'VIN': 'A'}");
    const [byId] = t.run("SELECT VALUE vid FROM Vehicle AS v BY vid WHERE v.VIN = 'A'");
    expect(
      t.run("SELECT VALUE r.metadata.id FROM _ql_committed_Vehicle AS r WHERE r.data.VIN = 'A'"),
    ).toEqual([byId]);
  });
});
