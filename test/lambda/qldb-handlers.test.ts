/**
 * The QLDB create/get handlers end to end: handler -> PersonStore -> real QLDB driver ->
 * mocked QLDBSession that answers like the service (Ion, sessions, OCC, commit digest).
 */

import type { QldbDriver } from 'amazon-qldb-driver-nodejs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ApiHandler, makeCreateHandler, makeGetHandler } from '../../lambda/shared/handlers';
import { createLabHttp, DB_DEADLINE_MS } from '../../lambda/shared/http-client';
import type { Person } from '../../lambda/shared/person';
import type { PersonStore } from '../../lambda/shared/person-store';
import { measureDb, type Timing } from '../../lambda/shared/timing-meter';
import { createQldbDriver, createQldbStore } from '../../targets/qldb/store';
import { type FakeQldbLedger, mockQldbLedger, TEST_CLIENT_CONFIG } from '../support/qldb-session-mock';

interface ResponseBody {
  readonly person?: Record<string, string>;
  readonly error?: string;
  readonly field?: string;
  readonly timing: Timing;
}

const ADA: Person = {
  GovId: 'LEWISR261LL',
  FirstName: 'Ada',
  LastName: 'Lovelace',
  DOB: '1815-12-10',
  GovIdType: 'Driver License',
  Address: '12 St James Square, London',
};

function createEvent(body: unknown): APIGatewayProxyEvent {
  const event: Partial<APIGatewayProxyEvent> = {
    httpMethod: 'POST',
    path: '/qldb/person',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    pathParameters: null,
  };
  return event as APIGatewayProxyEvent;
}

function getEvent(govId: string | undefined): APIGatewayProxyEvent {
  const event: Partial<APIGatewayProxyEvent> = {
    httpMethod: 'GET',
    path: `/qldb/person/${govId ?? ''}`,
    body: null,
    isBase64Encoded: false,
    pathParameters: govId === undefined ? null : { govId },
  };
  return event as APIGatewayProxyEvent;
}

function bodyOf(response: APIGatewayProxyResult): ResponseBody {
  return JSON.parse(response.body) as ResponseBody;
}

let ledger: FakeQldbLedger;
let driver: QldbDriver;
let store: PersonStore;
let create: ApiHandler;
let get: ApiHandler;

beforeEach(() => {
  // The handlers log one JSON line per invocation; keep test output readable.
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
  ledger = mockQldbLedger({ tables: { Person: ['GovId'] } });
  driver = createQldbDriver('lab', createLabHttp('on').options, TEST_CLIENT_CONFIG);
  // A new QLDB session is the mock's stand-in for a new connection.
  store = createQldbStore(driver, 'Person', {
    socketsOpened: () => ledger.sessionsStarted,
    requestsSent: () => ledger.commands.length,
  });
  create = makeCreateHandler(store, 'qldb-create');
  get = makeGetHandler(store, 'qldb-get');
});

afterEach(() => {
  driver.close();
  ledger.restore();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('a transaction its caller stopped waiting for', () => {
  // The store races the driver against the caller's deadline; the driver's transaction goes on.
  // It must end at its next step without committing, and its commands must not be counted as
  // the next call's (issue: "A QLDB transaction that timed out on the client keeps running").
  it('is aborted instead of committed, and the next call counts only its own commands', async () => {
    expect((await create(createEvent(ADA))).statusCode).toBe(201);
    // The INSERT answers after the caller's 100 ms deadline.
    ledger.failNext(1, { command: 'ExecuteStatement', delayMs: 400 });
    const late = { ...ADA, GovId: 'LATE-1' };
    await expect(store.create(late, AbortSignal.timeout(100))).rejects.toThrow();

    const m = await measureDb(store, () => store.get(ADA.GovId, AbortSignal.timeout(DB_DEADLINE_MS)));
    expect(m.outcome).toMatchObject({ ok: true });
    // A warm get: StartTransaction, ExecuteStatement, CommitTransaction; nothing of the late create.
    expect(m.dbRequests).toBe(3);
    expect(m.dbCommands).toEqual({ StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 });
    // The late create ended with AbortTransaction and wrote nothing.
    expect(ledger.commands).toContain('AbortTransaction');
    expect(ledger.documents('Person').map((d) => d.GovId)).toEqual([ADA.GovId]);
  });
});

describe('QLDB create', () => {
  it('answers 201, stores the person on commit, then 409 for the same GovId without overwriting', async () => {
    const first = await create(createEvent(ADA));
    expect(first.statusCode).toBe(201);
    expect(first.headers).toEqual({ 'content-type': 'application/json' });
    expect(bodyOf(first).person).toEqual(ADA);
    // Stored with its creation time (epoch ms), which the query sorts by and never returns.
    expect(ledger.documents('Person')).toEqual([{ ...ADA, CreatedAt: expect.any(Number) }]);

    const second = await create(createEvent({ ...ADA, FirstName: 'Augusta', Address: 'elsewhere' }));
    expect(second.statusCode).toBe(409);
    expect(bodyOf(second)).toMatchObject({
      error: `a person with GovId ${ADA.GovId} already exists`,
      field: 'GovId',
    });
    expect(ledger.documents('Person')).toEqual([{ ...ADA, CreatedAt: expect.any(Number) }]);

    // The first create read then inserted; the second only read. Each in a committed transaction.
    expect(ledger.statements.map((s) => s.statement)).toEqual([
      'SELECT GovId FROM Person WHERE GovId = ?',
      'INSERT INTO Person ?',
      'SELECT GovId FROM Person WHERE GovId = ?',
    ]);
    expect(ledger.statements.map((s) => s.parameters)).toEqual([
      [ADA.GovId],
      [{ ...ADA, CreatedAt: expect.any(Number) }],
      [ADA.GovId],
    ]);
    expect(ledger.statements.every((s) => s.committed && s.error === undefined)).toBe(true);
  });

  it('costs the SendCommand round trips the README states: 3 for a warm get, 4 for a warm create, +1 on a new session', async () => {
    const sent = () => ledger.commands.splice(0);
    expect((await get(getEvent(ADA.GovId))).statusCode).toBe(404);
    expect(sent()).toEqual(['StartSession', 'StartTransaction', 'ExecuteStatement', 'CommitTransaction']);
    expect((await get(getEvent(ADA.GovId))).statusCode).toBe(404);
    expect(sent()).toEqual(['StartTransaction', 'ExecuteStatement', 'CommitTransaction']);
    expect((await create(createEvent(ADA))).statusCode).toBe(201);
    expect(sent()).toEqual(['StartTransaction', 'ExecuteStatement', 'ExecuteStatement', 'CommitTransaction']);
    expect((await get(getEvent(ADA.GovId))).statusCode).toBe(200);
    expect(sent()).toEqual(['StartTransaction', 'ExecuteStatement', 'CommitTransaction']);
  });

  it('records the read and write I/Os each call was billed, as the session results report them', async () => {
    // QLDB bills I/Os: ExecuteStatement/FetchPage results carry the statement's ReadIOs and the
    // CommitTransaction result the transaction's WriteIOs (ConsumedIOs, QLDB Session API:
    // https://docs.aws.amazon.com/qldb/latest/developerguide/API_QLDB-Session_IOUsage.html).
    const billed = (r: APIGatewayProxyResult) => bodyOf(r).timing.billed;
    // The create's lookup finds nothing on the GovId index (no document read); its insert is one write.
    expect(billed(await create(createEvent(ADA)))).toEqual([
      { key: 'qldb.writeIos', quantity: 1, basis: 'measured' },
    ]);
    // The get reads the one document it finds; a read-only commit writes nothing.
    expect(billed(await get(getEvent(ADA.GovId)))).toEqual([
      { key: 'qldb.readIos', quantity: 1, basis: 'measured' },
    ]);
    // A request refused before the database call was billed nothing.
    expect(billed(await get(getEvent('not a gov id!')))).toBeUndefined();
  });

  it('lets exactly one of two racing creates for a GovId win (OCC conflict, retried, then 409)', async () => {
    const [a, b] = await Promise.all([
      create(createEvent(ADA)),
      create(createEvent({ ...ADA, FirstName: 'Augusta' })),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 409]);
    expect(ledger.occConflicts).toBe(1);
    const winner = a.statusCode === 201 ? ADA.FirstName : 'Augusta';
    expect(ledger.documents('Person')).toEqual([
      expect.objectContaining({ GovId: ADA.GovId, FirstName: winner }),
    ]);
  });

  it.each([
    ['a malformed body', '{"GovId":', undefined],
    ['an unknown field', { ...ADA, Salary: '1' }, 'Salary'],
    [
      'a missing required field',
      { GovId: 'X1', FirstName: 'A', LastName: 'B', DOB: '2000-01-01' },
      'GovIdType',
    ],
    ['an impossible date', { ...ADA, DOB: '2001-02-29' }, 'DOB'],
    ['a GovId with a quote', { ...ADA, GovId: "X' OR '1'='1" }, 'GovId'],
  ])('answers 400 for %s and sends nothing to QLDB', async (_name, body, field) => {
    const response = await create(createEvent(body));
    expect(response.statusCode).toBe(400);
    const parsed = bodyOf(response);
    expect(parsed.error).toEqual(expect.any(String));
    expect(parsed.field).toBe(field);
    expect(parsed.timing).toMatchObject({ dbMs: 0, newConnection: false });
    expect(ledger.commands).toEqual([]);
  });

  it('answers 503 naming QLDB when no session can be started, after one retry', async () => {
    ledger.failNext(2, { command: 'StartSession' });
    const response = await create(createEvent(ADA));
    // The refusal, not the deadline, ended it: the error names ECONNREFUSED.
    expect(response.statusCode).toBe(503);
    expect(bodyOf(response).error).toMatch(/^QLDB create failed: .*ECONNREFUSED/);
    expect(ledger.commands).toEqual(['StartSession', 'StartSession']);
    expect(ledger.documents('Person')).toEqual([]);
  });

  it('absorbs a single failed session start with the driver retry', async () => {
    ledger.failNext(1, { command: 'StartSession' });
    const response = await create(createEvent(ADA));
    expect(response.statusCode).toBe(201);
    expect(ledger.documents('Person')).toEqual([{ ...ADA, CreatedAt: expect.any(Number) }]);
  });

  it('writes nothing when the commit fails: 503, then the person is not found', async () => {
    ledger.failNext(1, { command: 'CommitTransaction' });
    const failed = await create(createEvent(ADA));
    expect(failed.statusCode).toBe(503);
    expect(bodyOf(failed).error).toMatch(/^QLDB create failed: /);
    expect(ledger.commands).toContain('AbortTransaction');
    expect(ledger.documents('Person')).toEqual([]);

    expect((await get(getEvent(ADA.GovId))).statusCode).toBe(404);
    expect((await create(createEvent(ADA))).statusCode).toBe(201);
  });

  it(
    'answers 503 within the deadline when QLDB does not answer at all',
    async () => {
      ledger.failNext(1, { command: 'StartTransaction', hang: true });
      const started = performance.now();
      const response = await create(createEvent(ADA));
      const elapsed = performance.now() - started;
      expect(response.statusCode).toBe(503);
      expect(bodyOf(response).error).toBe(`QLDB create did not answer within ${DB_DEADLINE_MS} ms`);
      // The deadline fired (the message says so) and not before its time.
      expect(elapsed).toBeGreaterThanOrEqual(DB_DEADLINE_MS - 50);
    },
    DB_DEADLINE_MS + 5000,
  );
});

describe('QLDB get', () => {
  it('answers 200 with the stored record', async () => {
    const { Address: _omit, ...noAddress } = ADA;
    expect((await create(createEvent(ADA))).statusCode).toBe(201);
    expect((await create(createEvent({ ...noAddress, GovId: 'OTHER1' }))).statusCode).toBe(201);

    const response = await get(getEvent(ADA.GovId));
    expect(response.statusCode).toBe(200);
    expect(bodyOf(response).person).toEqual(ADA);
    // An absent optional field stays absent rather than becoming "".
    expect(bodyOf(await get(getEvent('OTHER1'))).person).toEqual({ ...noAddress, GovId: 'OTHER1' });
    expect(ledger.statements.at(-1)).toMatchObject({ statement: 'SELECT * FROM Person WHERE GovId = ?' });
    expect(ledger.statements.at(-1)?.parameters).toEqual(['OTHER1']);
  });

  it('answers 404 for an unknown GovId', async () => {
    const response = await get(getEvent('NOBODY'));
    expect(response.statusCode).toBe(404);
    expect(bodyOf(response)).toMatchObject({ error: 'no person with GovId NOBODY', field: 'govId' });
  });

  it.each([
    ['a missing path parameter', undefined],
    ['a GovId with a space', 'A B'],
    ['a GovId over 64 characters', 'x'.repeat(65)],
  ])('answers 400 for %s and sends nothing to QLDB', async (_name, govId) => {
    const response = await get(getEvent(govId));
    expect(response.statusCode).toBe(400);
    expect(bodyOf(response).field).toBe('govId');
    expect(ledger.commands).toEqual([]);
  });

  it('answers 503 naming QLDB when the table is missing (a QLDB BadRequestException)', async () => {
    // Not 'Missing': MISSING is a PartiQL keyword, so FROM Missing is not a table name.
    const other = createQldbStore(driver, 'Absent', {
      socketsOpened: () => ledger.sessionsStarted,
      requestsSent: () => ledger.commands.length,
    });
    const response = await makeGetHandler(other, 'qldb-get')(getEvent(ADA.GovId));
    expect(response.statusCode).toBe(503);
    expect(bodyOf(response).error).toMatch(/^QLDB get failed: BadRequestException: .*Absent/);
    expect(ledger.statements).toEqual([expect.objectContaining({ error: 'BadRequestException' })]);
  });
});

describe('timing block', () => {
  it('carries dbMs, newConnection, dbRequests, coldStart and initType', async () => {
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'provisioned-concurrency');
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    // A fresh module graph so this environment's first invocation is the cold one.
    vi.resetModules();
    const fresh = await import('../../lambda/shared/handlers');
    const freshCreate = fresh.makeCreateHandler(store, 'qldb-create');
    const freshGet = fresh.makeGetHandler(store, 'qldb-get');

    const first = bodyOf(await freshCreate(createEvent(ADA))).timing;
    // A new session and a SELECT + INSERT: StartSession, StartTransaction, 2 x Execute, Commit.
    expect(first).toEqual({
      dbMs: expect.any(Number),
      newConnection: true,
      dbRequests: 5,
      // One HTTP request per SendCommand, each its own round trip.
      dbRoundTrips: 5,
      // The same five by the command each SendCommand carried.
      dbCommands: { StartSession: 1, StartTransaction: 1, ExecuteStatement: 2, CommitTransaction: 1 },
      coldStart: true,
      initType: 'provisioned-concurrency',
      environment: expect.any(String),
      concurrency: 1,
      billed: [{ key: 'qldb.writeIos', quantity: 1, basis: 'measured' }],
    });
    expect(first.dbMs).toBeGreaterThan(0);

    // The driver pools the session: no new connection, and no longer cold.
    const second = bodyOf(await freshGet(getEvent(ADA.GovId))).timing;
    expect(second).toEqual({
      dbMs: expect.any(Number),
      newConnection: false,
      dbRequests: 3,
      dbRoundTrips: 3,
      dbCommands: { StartTransaction: 1, ExecuteStatement: 1, CommitTransaction: 1 },
      coldStart: false,
      initType: 'provisioned-concurrency',
      environment: first.environment,
      concurrency: 1,
      billed: [{ key: 'qldb.readIos', quantity: 1, basis: 'measured' }],
    });
    expect(ledger.sessionsStarted).toBe(1);

    // The same block is logged once per invocation as an EMF line for metrics and reports.
    const emf = stdout.mock.calls
      .map(([chunk]) => String(chunk))
      .filter((line) => line.includes('"lab":"timing"'))
      .map((line) => JSON.parse(line));
    expect(emf.at(-1)).toMatchObject({
      function: 'qldb-get',
      status: '200',
      dbMs: second.dbMs,
      newConnection: 0,
      coldStart: 0,
    });
    stdout.mockRestore();
  });
});
