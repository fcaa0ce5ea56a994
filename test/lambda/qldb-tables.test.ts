/**
 * The QLDB tables custom resource against the mocked ledger: idempotent Create/Update,
 * no-op Delete, and properties rejected before any statement is sent.
 */

import { BadRequestException } from '@aws-sdk/client-qldb-session';
import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLabHttp } from '../../lambda/shared/http-client';
import { createQldbDriver } from '../../targets/qldb/store';
import { onEvent, physicalId } from '../../targets/qldb/tables-resource';
import { type FakeQldbLedger, mockQldbLedger, TEST_CLIENT_CONFIG } from '../support/qldb-session-mock';

const SERVICE_TOKEN = 'arn:aws:lambda:us-east-1:123456789012:function:provider';
const PERSON_PROPS = {
  ServiceToken: SERVICE_TOKEN,
  LedgerName: 'lab',
  Tables: ['Person'],
  Indexes: [{ Table: 'Person', Attribute: 'GovId' }],
};
const INFO_SCHEMA =
  "SELECT name, tableId, indexes FROM information_schema.user_tables WHERE status = 'ACTIVE'";

type RequestType = CloudFormationCustomResourceEvent['RequestType'];

function cfnEvent(
  RequestType: RequestType,
  ResourceProperties: Record<string, unknown>,
  PhysicalResourceId?: string,
): CloudFormationCustomResourceEvent {
  return {
    RequestType,
    ServiceToken: SERVICE_TOKEN,
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/lab/1',
    RequestId: 'request-1',
    LogicalResourceId: 'QldbTables',
    ResourceType: 'Custom::QldbTables',
    ResourceProperties: ResourceProperties as CloudFormationCustomResourceEvent['ResourceProperties'],
    ...(PhysicalResourceId === undefined ? {} : { PhysicalResourceId }),
    ...(RequestType === 'Update' ? { OldResourceProperties: PERSON_PROPS } : {}),
  } as CloudFormationCustomResourceEvent;
}

let ledger: FakeQldbLedger;
let ledgersRequested: string[];

/** The driver factory onEvent is given: the production driver, pointed at the mock. */
function driverFor(ledgerName: string): QldbDriver {
  ledgersRequested.push(ledgerName);
  return createQldbDriver(ledgerName, createLabHttp('on').options, TEST_CLIENT_CONFIG);
}

function createStatements(): string[] {
  return ledger.statements.map((s) => s.statement).filter((s) => s.startsWith('CREATE'));
}

function useLedger(options: Parameters<typeof mockQldbLedger>[0]): void {
  ledger.restore();
  ledger = mockQldbLedger(options);
}

beforeEach(() => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  ledger = mockQldbLedger();
  ledgersRequested = [];
});

afterEach(() => {
  ledger.restore();
  vi.restoreAllMocks();
});

describe('Create', () => {
  it('creates the table and its index and returns the table id under a stable physical id', async () => {
    const response = await onEvent(cfnEvent('Create', PERSON_PROPS), driverFor);

    expect(ledgersRequested).toEqual(['lab']);
    expect(ledger.tableNames()).toEqual(['Person']);
    expect(ledger.indexedAttributes('Person')).toEqual(['GovId']);
    expect(response).toEqual({
      PhysicalResourceId: 'qldb-tables:lab',
      Data: { PersonTableId: ledger.tableId('Person') },
    });
    expect(response.PhysicalResourceId).toBe(physicalId('lab'));
    expect(ledger.statements.map((s) => s.statement)).toEqual([
      INFO_SCHEMA,
      'CREATE TABLE Person',
      'CREATE INDEX ON Person (GovId)',
      INFO_SCHEMA,
    ]);
    expect(ledger.statements.every((s) => s.committed)).toBe(true);
    // The driver is closed: its pooled session is ended.
    expect(ledger.commands.at(-1)).toBe('EndSession');
  });

  it('is not an error when the table and index already exist, and creates nothing', async () => {
    const first = await onEvent(cfnEvent('Create', PERSON_PROPS), driverFor);
    const createsBefore = createStatements().length;

    const again = await onEvent(cfnEvent('Create', PERSON_PROPS), driverFor);
    const update = await onEvent(cfnEvent('Update', PERSON_PROPS, 'qldb-tables:lab'), driverFor);

    expect(again).toEqual(first);
    expect(update).toEqual(first);
    expect(createStatements()).toHaveLength(createsBefore);
    expect(ledger.statements.every((s) => s.error === undefined)).toBe(true);
  });

  it('adopts a table and index created outside the stack', async () => {
    useLedger({ tables: { Person: ['GovId'] } });
    const response = await onEvent(cfnEvent('Create', PERSON_PROPS), driverFor);
    expect(response.Data).toEqual({ PersonTableId: ledger.tableId('Person') });
    expect(ledger.statements.map((s) => s.statement)).toEqual([INFO_SCHEMA, INFO_SCHEMA]);
  });

  it('adds only a missing index to an existing table', async () => {
    useLedger({ tables: { Person: [] } });
    await onEvent(cfnEvent('Create', PERSON_PROPS), driverFor);
    expect(createStatements()).toEqual(['CREATE INDEX ON Person (GovId)']);
    expect(ledger.indexedAttributes('Person')).toEqual(['GovId']);
  });

  it('fails (it does not swallow) when QLDB fails, and still closes the driver', async () => {
    ledger.failNext(1, { command: 'StartTransaction' });
    await expect(onEvent(cfnEvent('Create', PERSON_PROPS), driverFor)).rejects.toThrow(/ECONNREFUSED/);
    expect(ledger.tableNames()).toEqual([]);
    expect(ledger.commands.at(-1)).toBe('EndSession');
  });
});

describe('the fake ledger is as strict as QLDB', () => {
  it('refuses CREATE TABLE for a table that exists, so the checks above are meaningful', async () => {
    useLedger({ tables: { Person: ['GovId'] } });
    const driver = driverFor('lab');
    try {
      await expect(driver.executeLambda((txn) => txn.execute('CREATE TABLE Person'))).rejects.toBeInstanceOf(
        BadRequestException,
      );
      await expect(
        driver.executeLambda((txn) => txn.execute('CREATE INDEX ON Person (GovId)')),
      ).rejects.toBeInstanceOf(BadRequestException);
    } finally {
      driver.close();
    }
  });
});

describe('Update', () => {
  it('creates only the table and index that were added, across result pages', async () => {
    // One value per page, so reading information_schema takes FetchPage calls.
    useLedger({ pageSize: 1 });
    const created = await onEvent(cfnEvent('Create', PERSON_PROPS), driverFor);
    const personId = ledger.tableId('Person');
    const createsBefore = createStatements().length;

    const props = {
      ...PERSON_PROPS,
      Tables: ['Person', 'Audit'],
      Indexes: [...PERSON_PROPS.Indexes, { Table: 'Audit', Attribute: 'GovId' }],
    };
    const updated = await onEvent(cfnEvent('Update', props, created.PhysicalResourceId), driverFor);

    expect(createStatements().slice(createsBefore)).toEqual([
      'CREATE TABLE Audit',
      'CREATE INDEX ON Audit (GovId)',
    ]);
    expect(updated).toEqual({
      PhysicalResourceId: created.PhysicalResourceId,
      Data: { PersonTableId: personId, AuditTableId: ledger.tableId('Audit') },
    });
    expect(ledger.commands).toContain('FetchPage');
  });
});

describe('Delete', () => {
  it('is a no-op that returns the physical id it was given', async () => {
    useLedger({ tables: { Person: ['GovId'] } });
    const response = await onEvent(cfnEvent('Delete', PERSON_PROPS, 'qldb-tables:lab'), driverFor);
    expect(response).toEqual({ PhysicalResourceId: 'qldb-tables:lab' });
    expect(ledgersRequested).toEqual([]);
    expect(ledger.commands).toEqual([]);
    expect(ledger.tableNames()).toEqual(['Person']);
  });
});

describe('bad properties', () => {
  it.each([
    ['a missing LedgerName', { ...PERSON_PROPS, LedgerName: undefined }, /LedgerName property is required/],
    ['an empty LedgerName', { ...PERSON_PROPS, LedgerName: '' }, /LedgerName property is required/],
    ['Tables that is not a list', { ...PERSON_PROPS, Tables: 'Person' }, /Tables property must be a list/],
    [
      'an index on a table not in Tables',
      { ...PERSON_PROPS, Indexes: [{ Table: 'Audit', Attribute: 'GovId' }] },
      /Index on Audit\.GovId names a table not in Tables/,
    ],
    [
      'an index without an Attribute',
      { ...PERSON_PROPS, Indexes: [{ Table: 'Person' }] },
      /must have string Table and Attribute/,
    ],
    [
      'a table name with a quote',
      { ...PERSON_PROPS, Tables: ["Person'"], Indexes: [] },
      /invalid QLDB table name "Person'"/,
    ],
    [
      'a table name with a space',
      { ...PERSON_PROPS, Tables: ['Per son'], Indexes: [] },
      /invalid QLDB table name "Per son"/,
    ],
    [
      'an index attribute that would inject PartiQL',
      { ...PERSON_PROPS, Indexes: [{ Table: 'Person', Attribute: 'GovId); DROP' }] },
      /invalid QLDB table name/,
    ],
    ['a table listed twice', { ...PERSON_PROPS, Tables: ['Person', 'Person'] }, /Person.*more than once/],
    [
      'an index listed twice',
      { ...PERSON_PROPS, Indexes: [PERSON_PROPS.Indexes[0], PERSON_PROPS.Indexes[0]] },
      /Person\.GovId.*more than once/,
    ],
  ])('rejects %s before any statement', async (_name, props, message) => {
    for (const type of ['Create', 'Update'] as const) {
      await expect(onEvent(cfnEvent(type, props, 'qldb-tables:lab'), driverFor)).rejects.toThrow(message);
    }
    expect(ledgersRequested).toEqual([]);
    expect(ledger.commands).toEqual([]);
  });
});
