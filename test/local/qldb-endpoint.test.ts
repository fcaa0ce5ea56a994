/**
 * The local QLDB engine over HTTP, driven by the real amazon-qldb-driver-nodejs and the SDK
 * clients: the tables custom resource, the create/get handlers, the commit digest, OCC, paging,
 * the PartiQL subset, the control plane and session expiry. Each test uses a ledger of its own
 * (the engine creates a ledger on first use), so the tests share one engine process.
 */
import {
  CreateLedgerCommand,
  DescribeLedgerCommand,
  ListLedgersCommand,
  QLDBClient,
} from '@aws-sdk/client-qldb';
import {
  BadRequestException,
  InvalidSessionException,
  QLDBSessionClient,
  SendCommandCommand,
} from '@aws-sdk/client-qldb-session';
import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import type { APIGatewayProxyEvent, CloudFormationCustomResourceEvent } from 'aws-lambda';
import { dom, dumpBinary } from 'ion-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeCreateHandler, makeGetHandler } from '../../lambda/shared/handlers';
import { createLabHttp } from '../../lambda/shared/http-client';
import {
  ionHash,
  type QldbEngine,
  startQldbEngine,
  statementDigest,
  stringHash,
} from '../../targets/qldb/engine';
import { createQldbDriver, createQldbStore } from '../../targets/qldb/store';
import { onEvent, handler as tablesHandler } from '../../targets/qldb/tables-resource';

const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const PAGE_SIZE = 3;

let engine: QldbEngine;
const drivers: QldbDriver[] = [];

beforeAll(async () => {
  // Each case makes its own ledger: more than QLDB's default quota of 5 active ledgers.
  engine = await startQldbEngine({ pageSize: PAGE_SIZE, activeLedgerLimit: 50 });
}, 30_000);

afterAll(async () => {
  for (const d of drivers) d.close();
  await engine?.stop();
});

beforeEach(() => {
  // The handlers and the custom resource log a line per call; keep the output readable.
  vi.spyOn(console, 'log').mockImplementation(() => {});
  return () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
  };
});

let ledgerCount = 0;
/** A new ledger, made through the control plane's CreateLedger (no other name is a ledger). */
async function newLedgerName(endpoint = engine.endpoint): Promise<string> {
  ledgerCount += 1;
  const name = `test-${ledgerCount}-${process.pid}`;
  const client = new QLDBClient({ region: REGION, credentials: CREDENTIALS, endpoint, maxAttempts: 1 });
  try {
    await client.send(
      new CreateLedgerCommand({ Name: name, PermissionsMode: 'STANDARD', DeletionProtection: false }),
    );
  } finally {
    client.destroy();
  }
  return name;
}

function driverFor(ledgerName: string, endpoint = engine.endpoint): QldbDriver {
  const driver = createQldbDriver(ledgerName, createLabHttp('on').options, {
    region: REGION,
    credentials: CREDENTIALS,
    endpoint,
  });
  drivers.push(driver);
  return driver;
}

function sessionClient(endpoint = engine.endpoint): QLDBSessionClient {
  return new QLDBSessionClient({ region: REGION, credentials: CREDENTIALS, endpoint, maxAttempts: 1 });
}

function tablesEvent(ledgerName: string): CloudFormationCustomResourceEvent {
  return {
    RequestType: 'Create',
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:provider',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/lab/1',
    RequestId: 'request-1',
    LogicalResourceId: 'QldbTables',
    ResourceType: 'Custom::QldbTables',
    ResourceProperties: {
      ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:provider',
      LedgerName: ledgerName,
      Tables: ['Person'],
      Indexes: [{ Table: 'Person', Attribute: 'GovId' }],
    },
  };
}

async function createPersonTable(ledgerName: string): Promise<void> {
  await onEvent(tablesEvent(ledgerName), (name) => driverFor(name));
}

function person(govId: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GovId: govId,
    FirstName: 'Ada',
    LastName: 'Lovelace',
    DOB: '1815-12-10',
    GovIdType: 'Driver License',
    Address: '12 St James Square, London',
    ...extra,
  };
}

async function rows(
  driver: QldbDriver,
  statement: string,
  ...params: unknown[]
): Promise<Record<string, unknown>[]> {
  return driver.executeLambda(async (txn) =>
    (await txn.execute(statement, ...params)).getResultList().map((v) => JSON.parse(JSON.stringify(v))),
  );
}

function createEvent(body: unknown): APIGatewayProxyEvent {
  const event: Partial<APIGatewayProxyEvent> = {
    httpMethod: 'POST',
    path: '/qldb/person',
    body: JSON.stringify(body),
    isBase64Encoded: false,
    pathParameters: null,
  };
  return event as APIGatewayProxyEvent;
}

function getEvent(govId: string): APIGatewayProxyEvent {
  const event: Partial<APIGatewayProxyEvent> = {
    httpMethod: 'GET',
    path: `/qldb/person/${govId}`,
    body: null,
    isBase64Encoded: false,
    pathParameters: { govId },
  };
  return event as APIGatewayProxyEvent;
}

describe('the tables custom resource against the endpoint', () => {
  it('creates the table and its index, and a second Create changes nothing', async () => {
    const ledgerName = await newLedgerName();
    const first = await onEvent(tablesEvent(ledgerName), (name) => driverFor(name));
    const second = await onEvent(tablesEvent(ledgerName), (name) => driverFor(name));
    expect(second).toEqual(first);
    expect(first.Data?.PersonTableId).toMatch(/^[A-Za-z0-9]{22}$/);
    const tables = await rows(
      driverFor(ledgerName),
      "SELECT name, tableId, indexes FROM information_schema.user_tables WHERE status = 'ACTIVE'",
    );
    expect(tables).toEqual([
      {
        name: 'Person',
        tableId: first.Data?.PersonTableId,
        indexes: [{ expr: '[GovId]', indexId: expect.any(String), status: 'ONLINE' }],
      },
    ]);
  });

  it('runs as deployed: the exported handler finds the endpoint through AWS_ENDPOINT_URL_QLDB_SESSION', async () => {
    vi.stubEnv('AWS_REGION', REGION);
    vi.stubEnv('AWS_ACCESS_KEY_ID', CREDENTIALS.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', CREDENTIALS.secretAccessKey);
    vi.stubEnv('AWS_ENDPOINT_URL_QLDB_SESSION', engine.endpoint);
    const ledgerName = await newLedgerName();
    const response = await tablesHandler(tablesEvent(ledgerName));
    expect(response.PhysicalResourceId).toBe(`qldb-tables:${ledgerName}`);
    const [table] = await rows(driverFor(ledgerName), 'SELECT tableId FROM information_schema.user_tables');
    expect(response.Data).toEqual({ PersonTableId: table.tableId });
  });
});

describe('the create and get handlers against the endpoint', () => {
  it('lets exactly one of many concurrent creates of one GovId win (201), the rest 409', async () => {
    // Each handler call also writes its EMF line to stdout.
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const ledgerName = await newLedgerName();
    await createPersonTable(ledgerName);
    const racers = 6;
    // One driver per racer, as separate Lambda environments would have.
    const responses = await Promise.all(
      Array.from({ length: racers }, (_, i) => {
        const http = createLabHttp('on');
        const store = createQldbStore(driverFor(ledgerName), 'Person', http);
        return makeCreateHandler(
          store,
          'qldb-create',
        )(createEvent(person('RACE-1', { FirstName: `Racer${i}` })));
      }),
    );
    const codes = responses.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, ...Array(racers - 1).fill(409)]);

    const winner = responses.find((r) => r.statusCode === 201);
    const stored = await rows(driverFor(ledgerName), 'SELECT * FROM Person WHERE GovId = ?', 'RACE-1');
    expect(stored).toHaveLength(1);
    // The store keeps its own creation time beside the Person; clients never see it.
    const { CreatedAt, ...storedPerson } = stored[0] as Record<string, unknown>;
    expect(typeof CreatedAt).toBe('number');
    expect(JSON.parse(winner?.body ?? '{}').person).toEqual(storedPerson);

    const store = createQldbStore(driverFor(ledgerName), 'Person', createLabHttp('on'));
    const got = await makeGetHandler(store, 'qldb-get')(getEvent('RACE-1'));
    expect(got.statusCode).toBe(200);
    expect(JSON.parse(got.body).person).toEqual(storedPerson);
  }, 30_000);
});

describe('the commit digest', () => {
  it('refuses a commit whose digest does not match the statements, and accepts the right one', async () => {
    const ledgerName = await newLedgerName();
    await createPersonTable(ledgerName);
    const client = sessionClient();
    try {
      const start = await client.send(new SendCommandCommand({ StartSession: { LedgerName: ledgerName } }));
      const SessionToken = start.StartSession?.SessionToken;
      const txn = await client.send(new SendCommandCommand({ SessionToken, StartTransaction: {} }));
      const TransactionId = txn.StartTransaction?.TransactionId ?? '';
      const statement = 'INSERT INTO Person ?';
      const parameter = dumpBinary(person('DIGEST-1'));
      await client.send(
        new SendCommandCommand({
          SessionToken,
          ExecuteStatement: { TransactionId, Statement: statement, Parameters: [{ IonBinary: parameter }] },
        }),
      );
      const right = statementDigest(stringHash(TransactionId), statement, [ionHash(parameter)]);
      const wrong = Uint8Array.from(right, (b, i) => (i === 0 ? b ^ 1 : b));

      const refused = client.send(
        new SendCommandCommand({ SessionToken, CommitTransaction: { TransactionId, CommitDigest: wrong } }),
      );
      await expect(refused).rejects.toBeInstanceOf(BadRequestException);
      await expect(refused).rejects.toThrow(/commit digest does not match/);

      const committed = await client.send(
        new SendCommandCommand({ SessionToken, CommitTransaction: { TransactionId, CommitDigest: right } }),
      );
      expect(committed.CommitTransaction?.TransactionId).toBe(TransactionId);
      expect(Buffer.from(committed.CommitTransaction?.CommitDigest ?? [])).toEqual(Buffer.from(right));
    } finally {
      client.destroy();
    }
    expect(await rows(driverFor(ledgerName), 'SELECT GovId FROM Person WHERE GovId = ?', 'DIGEST-1')).toEqual(
      [{ GovId: 'DIGEST-1' }],
    );
  });
});

describe('paging', () => {
  it(`returns results in pages of ${PAGE_SIZE} with a NextPageToken, and the driver reads them all`, async () => {
    const ledgerName = await newLedgerName();
    await createPersonTable(ledgerName);
    const driver = driverFor(ledgerName);
    await driver.executeLambda(async (txn) => {
      for (let i = 0; i < 8; i++) {
        await txn.execute(
          'INSERT INTO Person ?',
          person(`PAGE-${i}`, { GovIdType: i < 5 ? 'Passport' : 'Driver License' }),
        );
      }
    });
    const passports = await rows(driver, 'SELECT * FROM Person WHERE GovIdType = ?', 'Passport');
    expect(passports.map((p) => p.GovId).sort()).toEqual(['PAGE-0', 'PAGE-1', 'PAGE-2', 'PAGE-3', 'PAGE-4']);

    const client = sessionClient();
    try {
      const start = await client.send(new SendCommandCommand({ StartSession: { LedgerName: ledgerName } }));
      const SessionToken = start.StartSession?.SessionToken;
      const txn = await client.send(new SendCommandCommand({ SessionToken, StartTransaction: {} }));
      const TransactionId = txn.StartTransaction?.TransactionId ?? '';
      const first = await client.send(
        new SendCommandCommand({
          SessionToken,
          ExecuteStatement: { TransactionId, Statement: 'SELECT GovId FROM Person' },
        }),
      );
      const page1 = first.ExecuteStatement?.FirstPage;
      expect(page1?.Values).toHaveLength(PAGE_SIZE);
      expect(page1?.NextPageToken).toEqual(expect.any(String));
      const seen = (page1?.Values ?? []).map((v) =>
        dom
          .load(v.IonBinary ?? '')
          ?.get('GovId')
          ?.stringValue(),
      );
      let token = page1?.NextPageToken;
      while (token) {
        const next = await client.send(
          new SendCommandCommand({ SessionToken, FetchPage: { TransactionId, NextPageToken: token } }),
        );
        seen.push(
          ...(next.FetchPage?.Page?.Values ?? []).map((v) =>
            dom
              .load(v.IonBinary ?? '')
              ?.get('GovId')
              ?.stringValue(),
          ),
        );
        token = next.FetchPage?.Page?.NextPageToken;
      }
      expect(seen.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `PAGE-${i}`));
    } finally {
      client.destroy();
    }
  });
});

describe('the PartiQL subset', () => {
  it('updates fields in place and overwrites a document with DELETE + INSERT in one transaction', async () => {
    const ledgerName = await newLedgerName();
    await createPersonTable(ledgerName);
    const driver = driverFor(ledgerName);
    await rows(driver, 'INSERT INTO Person ?', person('UPD-1'));

    const updated = await rows(
      driver,
      'UPDATE Person SET FirstName = ?, Address = ? WHERE GovId = ?',
      'Augusta',
      'Ockham Park',
      'UPD-1',
    );
    expect(updated).toEqual([{ documentId: expect.any(String) }]);
    expect(
      await rows(driver, 'SELECT FirstName, Address, LastName FROM Person AS p WHERE p.GovId = ?', 'UPD-1'),
    ).toEqual([{ FirstName: 'Augusta', Address: 'Ockham Park', LastName: 'Lovelace' }]);

    const replacement = {
      GovId: 'UPD-1',
      FirstName: 'Ada',
      LastName: 'King',
      DOB: '1815-12-10',
      GovIdType: 'Passport',
    };
    await driver.executeLambda(async (txn) => {
      await txn.execute('DELETE FROM Person WHERE GovId = ?', 'UPD-1');
      await txn.execute('INSERT INTO Person ?', replacement);
    });
    // The old Address is gone: the whole document was replaced.
    expect(await rows(driver, 'SELECT * FROM Person WHERE GovId = ?', 'UPD-1')).toEqual([replacement]);
  });

  it('answers BadRequestException naming what QLDB does not support, with line and column', async () => {
    const ledgerName = await newLedgerName();
    await createPersonTable(ledgerName);
    const driver = driverFor(ledgerName);
    const refused = rows(driver, 'SELECT * FROM Person ORDER BY GovId');
    await expect(refused).rejects.toBeInstanceOf(BadRequestException);
    await expect(refused).rejects.toThrow(/Parser Error: at line 1, column 22: ORDER BY is not supported/);
    await expect(rows(driver, 'SELECT * FROM Nobody')).rejects.toThrow(/No such variable named 'Nobody'/);
  });
});

describe('the control plane on the same port', () => {
  it('answers DescribeLedger and ListLedgers as the QLDB REST API does', async () => {
    const ledgerName = await newLedgerName();
    await createPersonTable(ledgerName);
    const client = new QLDBClient({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: engine.endpoint,
      maxAttempts: 1,
    });
    try {
      const described = await client.send(new DescribeLedgerCommand({ Name: ledgerName }));
      expect(described).toMatchObject({
        Name: ledgerName,
        State: 'ACTIVE',
        Arn: `arn:aws:qldb:${REGION}:000000000000:ledger/${ledgerName}`,
        DeletionProtection: false,
      });
      expect(described.CreationDateTime).toBeInstanceOf(Date);
      const listed = await client.send(new ListLedgersCommand({}));
      expect(listed.Ledgers?.map((l) => l.Name)).toContain(ledgerName);
    } finally {
      client.destroy();
    }
  });
});

describe('session and transaction expiry', () => {
  let short: QldbEngine;
  beforeAll(async () => {
    short = await startQldbEngine({ sessionIdleMs: 300, transactionTimeoutMs: 400, activeLedgerLimit: 50 });
  }, 30_000);
  afterAll(() => short?.stop());

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('expires an idle session (InvalidSessionException) and the driver starts a new one by itself', async () => {
    const ledgerName = await newLedgerName(short.endpoint);
    const client = sessionClient(short.endpoint);
    try {
      const start = await client.send(new SendCommandCommand({ StartSession: { LedgerName: ledgerName } }));
      await sleep(450);
      const stale = client.send(
        new SendCommandCommand({ SessionToken: start.StartSession?.SessionToken, StartTransaction: {} }),
      );
      await expect(stale).rejects.toBeInstanceOf(InvalidSessionException);
      await expect(stale).rejects.toThrow(/Exceeded the session idle time limit/);
    } finally {
      client.destroy();
    }

    const driver = driverFor(ledgerName, short.endpoint);
    await driver.executeLambda((txn) => txn.execute('CREATE TABLE Person'));
    await sleep(450);
    // The pooled session has expired: the driver gets InvalidSessionException and retries on a new one.
    await rows(driver, 'INSERT INTO Person ?', person('IDLE-1'));
    expect(await rows(driver, 'SELECT GovId FROM Person')).toEqual([{ GovId: 'IDLE-1' }]);
  });

  it('expires a transaction not committed in time, and commits nothing of it', async () => {
    const ledgerName = await newLedgerName(short.endpoint);
    const driver = driverFor(ledgerName, short.endpoint);
    await driver.executeLambda((txn) => txn.execute('CREATE TABLE Person'));
    const slow = driver.executeLambda(async (txn) => {
      await txn.execute('INSERT INTO Person ?', person('SLOW-1'));
      await sleep(500);
      await txn.execute('SELECT * FROM Person');
    });
    await expect(slow).rejects.toBeInstanceOf(InvalidSessionException);
    await expect(slow).rejects.toThrow(/Transaction \S+ has expired/);
    expect(await rows(driver, 'SELECT * FROM Person')).toEqual([]);
  });
});
