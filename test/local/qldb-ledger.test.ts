/**
 * The local QLDB engine's parts in-process: the PartiQL parser, OCC rules beyond the
 * one-GovId race, and the journal's crash rules (torn last line dropped, corruption refused).
 */
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { dom } from 'ion-js';
import { afterEach, describe, expect, it } from 'vitest';
import { QldbControlPlane } from '../../targets/qldb/engine/control-plane';
import { QldbError } from '../../targets/qldb/engine/errors';
import { JOURNAL_FILE, Journal } from '../../targets/qldb/engine/journal';
import { Ledger, type Transaction, toIon } from '../../targets/qldb/engine/ledger';
import { parseStatement } from '../../targets/qldb/engine/partiql';
import { QldbSessionService } from '../../targets/qldb/engine/session-service';

describe('the PartiQL parser', () => {
  it.each([
    ['CREATE TABLE Person', 'createTable', 0],
    ['create index on Person (GovId)', 'createIndex', 0],
    ['SELECT GovId FROM Person WHERE GovId = ?', 'select', 1],
    ["SELECT p.GovId, p.DOB FROM Person AS p WHERE p.GovIdType = ? AND p.LastName = 'O''Hara'", 'select', 1],
    ['INSERT INTO Person VALUE ?', 'insert', 1],
    ['INSERT INTO Person << ?, ? >>', 'insert', 2],
    ['UPDATE Person p SET p.FirstName = ?, p.Address = ? WHERE p.GovId = ?', 'update', 3],
    ['DELETE FROM Person WHERE GovId = ?', 'delete', 1],
    ["SELECT VALUE name FROM information_schema.user_tables WHERE status = 'ACTIVE'", 'select', 0],
    ['DROP TABLE Person', 'dropTable', 0],
  ])('parses %s', (text, kind, parameterCount) => {
    const parsed = parseStatement(text);
    expect(parsed.statement.kind).toBe(kind);
    expect(parsed.parameterCount).toBe(parameterCount);
  });

  it('keeps the Ion type of a numeric literal, its sign included', () => {
    const parsed = parseStatement('SELECT VALUE [-7, 7.0, 007.50, 7e0, +2., -1.5E-3] FROM T');
    const s = parsed.statement;
    if (s.kind !== 'select' || s.projection.k !== 'value' || s.projection.e.k !== 'list')
      throw new Error(s.kind);
    const items = s.projection.e.items.map((e) =>
      e.k === 'lit' && e.v ? [e.v.getType().name, String(e.v.numberValue())] : [],
    );
    expect(items).toEqual([
      ['int', '-7'],
      ['decimal', '7'],
      ['decimal', '7.5'],
      ['float', '7'],
      ['decimal', '2'],
      ['float', '-0.0015'],
    ]);
  });

  it.each([
    ['SELECT * FROM Person ORDER BY GovId', 'Parser Error: at line 1, column 22: ORDER BY is not supported'],
    ['SELECT * FROM Person\nWHERE GovId = = ?', 'Parser Error: at line 2, column 15:'],
    ["SELECT * FROM Person WHERE GovId = 'x", 'Parser Error: at line 1, column 36: unterminated string'],
    ['SELEC * FROM Person', 'Parser Error: at line 1, column 1:'],
  ])('refuses %s as QLDB did, naming line and column', (text, message) => {
    let caught: unknown;
    try {
      parseStatement(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(QldbError);
    expect((caught as QldbError).code).toBe('BadRequestException');
    expect((caught as QldbError).message).toContain(message);
  });
});

let txnCount = 0;
function begin(ledger: Ledger): Transaction {
  txnCount += 1;
  return ledger.begin(`txn-${txnCount}`, Date.now(), new Uint8Array(32));
}

function run(ledger: Ledger, txn: Transaction, text: string, ...params: unknown[]): dom.Value[] {
  return ledger.execute(txn, parseStatement(text), params.map(toIon));
}

function plain(values: readonly dom.Value[]): unknown[] {
  return values.map((v) => JSON.parse(JSON.stringify(v)));
}

describe('OCC', () => {
  function seeded(): Ledger {
    const ledger = new Ledger('lab');
    ledger.defineTable('Person', ['GovId']);
    const txn = begin(ledger);
    run(
      ledger,
      txn,
      'INSERT INTO Person << ?, ? >>',
      { GovId: 'A', GovIdType: 'Passport' },
      { GovId: 'B', GovIdType: 'Passport' },
    );
    ledger.commit(txn, Date.now());
    return ledger;
  }

  it('an indexed lookup conflicts only with writes to what it read', () => {
    const ledger = seeded();
    const reader = begin(ledger);
    expect(plain(run(ledger, reader, 'SELECT GovId FROM Person WHERE GovId = ?', 'A'))).toEqual([
      { GovId: 'A' },
    ]);
    const other = begin(ledger);
    run(ledger, other, 'UPDATE Person SET GovIdType = ? WHERE GovId = ?', 'Visa', 'B');
    ledger.commit(other, Date.now());
    expect(() => ledger.commit(reader, Date.now())).not.toThrow();

    const again = begin(ledger);
    run(ledger, again, 'SELECT GovId FROM Person WHERE GovId = ?', 'A');
    const writer = begin(ledger);
    run(ledger, writer, 'UPDATE Person SET GovIdType = ? WHERE GovId = ?', 'Visa', 'A');
    ledger.commit(writer, Date.now());
    expect(() => ledger.commit(again, Date.now())).toThrow(
      expect.objectContaining({ code: 'OccConflictException' }),
    );
    expect(ledger.occConflicts).toBe(1);
  });

  it('a query on an unindexed field scans the table and conflicts with any write to it, as QLDB warns', () => {
    const ledger = seeded();
    const scan = begin(ledger);
    expect(run(ledger, scan, 'SELECT * FROM Person WHERE GovIdType = ?', 'Passport')).toHaveLength(2);
    const insert = begin(ledger);
    run(ledger, insert, 'INSERT INTO Person ?', { GovId: 'C', GovIdType: 'Visa' });
    ledger.commit(insert, Date.now());
    expect(() => ledger.commit(scan, Date.now())).toThrow(/Optimistic concurrency control/);
  });

  it('a transaction sees its own writes and nothing of an uncommitted one', () => {
    const ledger = seeded();
    const mine = begin(ledger);
    run(ledger, mine, 'DELETE FROM Person WHERE GovId = ?', 'A');
    run(ledger, mine, 'INSERT INTO Person ?', { GovId: 'A', GovIdType: 'Visa' });
    expect(plain(run(ledger, mine, 'SELECT GovIdType FROM Person WHERE GovId = ?', 'A'))).toEqual([
      { GovIdType: 'Visa' },
    ]);
    const theirs = begin(ledger);
    expect(plain(run(ledger, theirs, 'SELECT GovIdType FROM Person WHERE GovId = ?', 'A'))).toEqual([
      { GovIdType: 'Passport' },
    ]);
  });
});

describe('the journal', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function commitOne(journal: Journal, ledger: Ledger, govId: string): Promise<void> {
    const txn = begin(ledger);
    run(ledger, txn, 'INSERT INTO Person ?', { GovId: govId, Born: toIon(new Date('1815-12-10T00:00:00Z')) });
    const record = ledger.commit(txn, Date.now());
    if (!record) throw new Error('nothing to journal');
    await journal.append(record);
  }

  function replay(records: Parameters<Ledger['apply']>[0][]): Ledger {
    const ledger = new Ledger('lab');
    for (const r of records) ledger.apply(r);
    return ledger;
  }

  it('replays every commit, Ion types intact, drops a torn last line and appends cleanly after it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'qldb-journal-'));
    const first = await Journal.open(dir);
    const ledger = new Ledger('lab');
    const create = begin(ledger);
    run(ledger, create, 'CREATE TABLE Person');
    run(ledger, create, 'CREATE INDEX ON Person (GovId)');
    const created = ledger.commit(create, Date.now());
    if (!created) throw new Error('nothing to journal');
    await first.journal.append(created);
    await Promise.all(['A', 'B', 'C'].map((id) => commitOne(first.journal, ledger, id)));
    await first.journal.close();
    // A crash in the middle of writing the next line.
    await appendFile(join(dir, JOURNAL_FILE), '{"v":1,"ledger":"lab","txn":"torn');

    const second = await Journal.open(dir);
    expect(second.droppedBytes).toBeGreaterThan(0);
    expect(second.records).toHaveLength(4);
    const replayed = replay(second.records);
    expect(replayed.indexedFields('Person')).toEqual(['GovId']);
    expect(replayed.documents('Person').map((d) => d.get('GovId')?.stringValue())).toEqual(['A', 'B', 'C']);
    expect(replayed.documents('Person')[0].get('Born')?.timestampValue()?.getDate().toISOString()).toBe(
      '1815-12-10T00:00:00.000Z',
    );
    await commitOne(second.journal, replayed, 'D');
    await second.journal.close();

    const third = await Journal.open(dir);
    await third.journal.close();
    expect(third.droppedBytes).toBe(0);
    expect(replay(third.records).documents('Person')).toHaveLength(4);
  });

  it('refuses to start on a corrupt line that is not the last, naming it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'qldb-journal-'));
    await writeFile(join(dir, JOURNAL_FILE), 'not json\n{"also":"bad"}\n');
    await expect(Journal.open(dir)).rejects.toThrow(/line 1 is corrupt.*refusing to start/);
  });
});

describe('the control plane in the journal', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function reopen(path: string): Promise<{ service: QldbControlPlane; journal: Journal }> {
    const opened = await Journal.open(path);
    return {
      service: new QldbControlPlane({ journal: opened.journal }, opened.records),
      journal: opened.journal,
    };
  }

  // A ledger made with CreateLedger, its deletion protection and its deletion survive a restart; a
  // deleted ledger's tables are gone with it (the driver's integration suites delete and re-create
  // their ledger around each run).
  it('replays CreateLedger, UpdateLedger and DeleteLedger, the ledger data going with it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'qldb-control-'));
    let { service, journal } = await reopen(dir);
    await service.createLedger({ Name: 'kept', PermissionsMode: 'STANDARD' });
    await service.createLedger({ Name: 'gone', PermissionsMode: 'ALLOW_ALL', DeletionProtection: false });
    const ledger = service.ledger('gone');
    if (!ledger) throw new Error('gone is not ACTIVE');
    const txn = begin(ledger);
    run(ledger, txn, 'CREATE TABLE T');
    const record = ledger.commit(txn, Date.now());
    if (record) await journal.append(record);
    await expect(service.deleteLedger('kept')).rejects.toMatchObject({
      code: 'ResourcePreconditionNotMetException',
    });
    await service.deleteLedger('gone');
    await journal.close();

    ({ service, journal } = await reopen(dir));
    expect(service.describeLedger('kept')).toMatchObject({ State: 'ACTIVE', DeletionProtection: true });
    expect(() => service.describeLedger('gone')).toThrow(
      expect.objectContaining({ code: 'ResourceNotFoundException' }),
    );
    await service.updateLedger('kept', { DeletionProtection: false });
    await service.createLedger({ Name: 'gone', PermissionsMode: 'STANDARD' });
    expect(service.ledger('gone')?.tableNames()).toEqual([]);
    await journal.close();

    ({ service, journal } = await reopen(dir));
    expect(service.describeLedger('kept').DeletionProtection).toBe(false);
    await journal.close();
  });
});

describe('the control plane beside the Session API', () => {
  it('ends the sessions open on a ledger when DeleteLedger starts deleting it, and no others', async () => {
    const service = new QldbSessionService({ ledgers: ['other'] });
    await service.control.createLedger({
      Name: 'doomed',
      PermissionsMode: 'STANDARD',
      DeletionProtection: false,
    });
    const start = async (LedgerName: string) =>
      (await service.send({ StartSession: { LedgerName } })).StartSession?.SessionToken ?? '';
    const doomed = await start('doomed');
    const other = await start('other');
    await service.control.deleteLedger('doomed');
    await expect(service.send({ SessionToken: doomed, StartTransaction: {} })).rejects.toMatchObject({
      code: 'InvalidSessionException',
      message: 'Ledger doomed is being deleted',
    });
    await expect(service.send({ SessionToken: other, StartTransaction: {} })).resolves.toHaveProperty(
      'StartTransaction.TransactionId',
    );
    await expect(service.send({ StartSession: { LedgerName: 'doomed' } })).rejects.toMatchObject({
      code: 'BadRequestException',
    });
  });
});
