/**
 * overwrite, update and query on QLDB: handler -> PersonStore -> the real QLDB driver -> the
 * local QLDB engine's ledger behind a mocked QLDBSession (sessions, OCC, paging, Ion).
 */
import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  makeCreateHandler,
  makeOverwriteHandler,
  makeQueryHandler,
  makeUpdateHandler,
} from '../../lambda/shared/handlers';
import { createLabHttp } from '../../lambda/shared/http-client';
import type { PersonStore } from '../../lambda/shared/person-store';
import { createQldbDriver, createQldbStore } from '../../targets/qldb/store';
import {
  bodyOf,
  createEvent,
  overwriteEvent,
  queryEvent,
  samplePerson,
  updateEvent,
} from '../support/events';
import { type FakeQldbLedger, mockQldbLedger, TEST_CLIENT_CONFIG } from '../support/qldb-session-mock';
import { describeWorkloads } from '../support/workload-contract';

let ledger: FakeQldbLedger;
let driver: QldbDriver;

function storeOn(pageSize?: number): PersonStore {
  driver?.close();
  ledger?.restore();
  // Both indexes the tables custom resource creates (targets/qldb/cdk.ts).
  ledger = mockQldbLedger({ tables: { Person: ['GovId', 'GovIdType'] }, pageSize });
  driver = createQldbDriver('lab', createLabHttp('on').options, TEST_CLIENT_CONFIG);
  return createQldbStore(driver, 'Person', {
    socketsOpened: () => ledger.sessionsStarted,
    requestsSent: () => ledger.commands.length,
  });
}

beforeEach(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  driver?.close();
  ledger?.restore();
  vi.restoreAllMocks();
});

describe('QLDB workloads', () => {
  // Warm (session open): StartTransaction, the statements, CommitTransaction.
  describeWorkloads(() => ({
    name: 'qldb',
    store: () => storeOn(),
    warm: { overwrite: 4, overwriteMissing: 3, update: 4, updateMissing: 3, query: 3 },
  }));

  it('overwrite is DELETE + INSERT in one committed transaction; update is SELECT + UPDATE SET', async () => {
    const store = storeOn();
    const id = 'QW-1';
    expect((await makeCreateHandler(store, 'qldb-create')(createEvent(samplePerson(id)))).statusCode).toBe(
      201,
    );
    const [{ CreatedAt: created }] = ledger.documents('Person');
    ledger.statements.splice(0);
    ledger.commands.splice(0);
    await new Promise((r) => setTimeout(r, 3));

    const next = { ...samplePerson(id), FirstName: 'Augusta', GovIdType: 'SSN' };
    expect((await makeOverwriteHandler(store, 'qldb-overwrite')(overwriteEvent(id, next))).statusCode).toBe(
      200,
    );
    expect(ledger.commands).toEqual([
      'StartTransaction',
      'ExecuteStatement',
      'ExecuteStatement',
      'CommitTransaction',
    ]);
    expect(ledger.statements.map((s) => [s.statement, s.committed])).toEqual([
      ['DELETE FROM Person WHERE GovId = ?', true],
      ['INSERT INTO Person ?', true],
    ]);
    expect(new Set(ledger.statements.map((s) => s.transactionId)).size).toBe(1);
    // One document, the new one, with a later creation time.
    expect(ledger.documents('Person')).toEqual([{ ...next, CreatedAt: expect.any(Number) }]);
    const recreated = ledger.documents('Person')[0].CreatedAt;
    expect(Number(recreated)).toBeGreaterThan(Number(created));

    ledger.statements.splice(0);
    const r = await makeUpdateHandler(store, 'qldb-update')(updateEvent(id, { Address: 'Moved' }));
    expect(bodyOf(r).person).toEqual({ ...next, Address: 'Moved' });
    expect(ledger.statements.map((s) => [s.statement, s.parameters])).toEqual([
      ['SELECT * FROM Person WHERE GovId = ?', [id]],
      ['UPDATE Person SET Address = ? WHERE GovId = ?', ['Moved', id]],
    ]);
    // The update keeps the creation time.
    expect(ledger.documents('Person')[0].CreatedAt).toEqual(recreated);
  });

  it('query reads every Person of the type (QLDB has no ORDER BY or LIMIT): its round trips grow with the table, not with limit', async () => {
    // Pages of 5 documents: 23 Persons of the type are 5 pages, 4 of them fetched with FetchPage.
    const store = storeOn(5);
    const create = makeCreateHandler(store, 'qldb-create');
    for (let i = 0; i < 23; i++) {
      expect((await create(createEvent({ ...samplePerson(`QP-${i}`), GovIdType: 'Paged' }))).statusCode).toBe(
        201,
      );
    }
    ledger.statements.splice(0);
    ledger.commands.splice(0);
    const r = await makeQueryHandler(store, 'qldb-query')(queryEvent({ govIdType: 'Paged', limit: '2' }));
    expect(r.statusCode).toBe(200);
    expect(bodyOf(r).persons?.map((p) => p.GovId)).toEqual(['QP-22', 'QP-21']);
    expect(ledger.statements.map((s) => [s.statement, s.parameters])).toEqual([
      ['SELECT * FROM Person WHERE GovIdType = ?', ['Paged']],
    ]);
    expect(ledger.commands.filter((c) => c === 'FetchPage')).toHaveLength(4);
    expect(bodyOf(r).timing.dbRequests).toBe(3 + 4);
  });
});
