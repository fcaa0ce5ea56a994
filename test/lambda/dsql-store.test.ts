/**
 * The dsql store and handlers against a real PostgreSQL behind the DSQL front (token check)
 * and the network model (SSLRequest, TLS 1.3 verified against the lab CA).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvError } from '../../lambda/shared/env';
import { createPerson, makeCreateHandler, makeGetHandler, makeHandler } from '../../lambda/shared/handlers';
import { CONNECTION_TIMEOUT_MS, DB_DEADLINE_MS, REQUEST_TIMEOUT_MS } from '../../lambda/shared/http-client';
import { measureDb } from '../../lambda/shared/timing-meter';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { DSQL_DATABASE } from '../../targets/dsql/client';
import { OC000 } from '../../targets/dsql/front';
import { adminConnect, onEvent } from '../../targets/dsql/schema-resource';
import {
  createDsqlStore,
  type DsqlPersonStore,
  MAX_CONFLICT_ATTEMPTS,
  readDsqlEnv,
} from '../../targets/dsql/store';
import { type DsqlLocal, LOCAL_DSQL_HOST, startDsqlLocal } from '../support/dsql-local';
import { bodyOf, createEvent, getEvent, samplePerson } from '../support/events';
import { describeTopStories } from '../support/top-stories-contract';

const ROLE = 'lab_app';
const deadline = (): AbortSignal => AbortSignal.timeout(DB_DEADLINE_MS);
let local: DsqlLocal;
let admin: pg.Client;
const stores: DsqlPersonStore[] = [];

function store(
  keepAlive: 'on' | 'off',
  extra: { maxConnectionAgeMs?: number; port?: number } = {},
): DsqlPersonStore {
  const s = createDsqlStore({
    endpoint: { host: LOCAL_DSQL_HOST, port: extra.port ?? local.model.port, user: ROLE },
    tokens: local.tokens('DbConnect'),
    keepAlive,
    tls: { ca: local.ca },
    maxConnectionAgeMs: extra.maxConnectionAgeMs,
    // 3x the functions' own bounds, which no case here checks: a connect on a loaded machine
    // took more than their 1 s, and the top 10's concurrent views failed with 503.
    connectTimeoutMs: 3 * CONNECTION_TIMEOUT_MS,
    queryTimeoutMs: 3 * REQUEST_TIMEOUT_MS,
  });
  stores.push(s);
  return s;
}

const schemaEvent = (): CloudFormationCustomResourceEvent =>
  ({
    RequestType: 'Create',
    ResourceType: 'Custom::DsqlSchema',
    ResourceProperties: { ServiceToken: 'local', ClusterId: 'localcluster', Role: ROLE },
  }) as unknown as CloudFormationCustomResourceEvent;

/** A client as a function opens one, with whatever password the test gives. */
async function connectWith(password: string, user = ROLE): Promise<pg.Client> {
  const client = new pg.Client({
    host: LOCAL_DSQL_HOST,
    port: local.model.port,
    user,
    database: DSQL_DATABASE,
    password,
    ssl: { rejectUnauthorized: true, ca: local.ca },
    connectionTimeoutMillis: 2000,
  });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** A token signed `ageS` seconds ago, valid `expiresS`, for the local endpoint. */
async function signedToken(
  action: string,
  ageS: number,
  expiresS: number,
  key: { accessKeyId: string; secretAccessKey: string } = LOCAL_CREDENTIALS,
): Promise<string> {
  const signer = new SignatureV4({
    credentials: key,
    region: LOCAL_REGION,
    service: 'dsql',
    sha256: Hash.bind(null, 'sha256'),
  });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname: LOCAL_DSQL_HOST,
    path: '/',
    query: { Action: action },
    headers: { host: LOCAL_DSQL_HOST },
  });
  const signed = await signer.presign(request, {
    signingDate: new Date(Date.now() - ageS * 1000),
    expiresIn: expiresS,
  });
  const query = new URLSearchParams(signed.query as Record<string, string>).toString();
  return `${LOCAL_DSQL_HOST}/?${query}`;
}

beforeAll(async () => {
  local = await startDsqlLocal({ rttMs: 2 });
  await onEvent(
    schemaEvent(),
    adminConnect(
      { AWS_REGION: LOCAL_REGION, DSQL_ENDPOINT: LOCAL_DSQL_HOST, DSQL_PORT: String(local.model.port) },
      { ca: local.ca },
      LOCAL_CREDENTIALS,
    ),
  );
  admin = await local.admin();
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await admin?.end();
  await local?.stop();
});

// A view is one UPDATE ... RETURNING, the top 10 one SELECT by person_by_views: each one
// extended-protocol statement (Parse, Bind, Describe, Execute, Sync) in one round trip.
describeTopStories(() => ({
  name: 'dsql',
  store: () => store('on'),
  warm: { view: 5, viewMissing: 5, top10: 5 },
}));

describe('dsql handlers against PostgreSQL behind the DSQL front', () => {
  it('answers 201, 409, 200, 404 and 400 with the timing block', async () => {
    const s = store('on');
    const create = makeCreateHandler(s, 'dsql-create');
    const get = makeGetHandler(s, 'dsql-get');
    const created = await create(createEvent(samplePerson('DSQL-1')));
    expect(created.statusCode).toBe(201);
    // New connection: SSLRequest, startup, token, then one statement's five messages; the client
    // waits after SSLRequest, startup, token and Sync.
    expect(bodyOf(created).timing).toMatchObject({ newConnection: true, dbRequests: 8, dbRoundTrips: 4 });
    const again = await create(createEvent({ ...samplePerson('DSQL-1'), FirstName: 'Grace' }));
    expect(again.statusCode).toBe(409);
    expect(bodyOf(again).timing).toMatchObject({ newConnection: false, dbRequests: 5, dbRoundTrips: 1 });
    const found = await get(getEvent('DSQL-1'));
    expect(found.statusCode).toBe(200);
    expect(bodyOf(found).person).toEqual(samplePerson('DSQL-1'));
    expect((await get(getEvent('DSQL-NONE'))).statusCode).toBe(404);
    const bad = await create(createEvent({ ...samplePerson('DSQL-2'), DOB: 'yesterday' }));
    expect(bad.statusCode).toBe(400);
    expect(bodyOf(bad)).toMatchObject({ field: 'DOB', timing: { dbRequests: 0 } });
    expect((await get(getEvent('bad id!'))).statusCode).toBe(400);
    const stored = await admin.query('SELECT first_name FROM person WHERE govid = $1', ['DSQL-1']);
    expect(stored.rows).toEqual([{ first_name: 'Ada' }]);
  });

  it('a DOB of 0000-01-01 (no date in PostgreSQL) answers 400 naming DOB, before any database call', async () => {
    const create = makeCreateHandler(store('on'), 'dsql-create');
    const bad = await create(createEvent({ ...samplePerson('DSQL-Y0'), DOB: '0000-01-01' }));
    expect(bad.statusCode).toBe(400);
    expect(bodyOf(bad)).toMatchObject({ field: 'DOB', timing: { dbRequests: 0 } });
  });

  it('data the database refuses (SQLSTATE 22, 23) is a 400 naming the field, sent once, connection kept', async () => {
    const s = store('on');
    // Validation would stop these first; this parser lets them reach the database.
    const unchecked: typeof createPerson = {
      ...createPerson,
      parse: (event) => ({ ok: true, value: JSON.parse(event.body ?? '{}') }),
    };
    const create = makeHandler(s, 'dsql-create', unchecked);
    expect((await create(createEvent(samplePerson('DSQL-22-OK')))).statusCode).toBe(201);
    const opened = s.socketsOpened();
    const sentBefore = s.requestsSent();
    // 22008 datetime_field_overflow: PostgreSQL has no year zero.
    const year0 = await create(createEvent({ ...samplePerson('DSQL-22A'), DOB: '0000-01-01' }));
    expect(year0.statusCode).toBe(400);
    expect(bodyOf(year0).field).toBe('DOB');
    expect(bodyOf(year0).error).toMatch(
      /^DSQL create refused the request: DOB refused by the database: .*22008/,
    );
    // One statement sent (Parse/Bind/Execute/Sync as for any insert), never again; no conflict retry.
    expect(s.conflictRetries()).toBe(0);
    expect(bodyOf(year0).timing.dbRequests).toBe(s.requestsSent() - sentBefore);
    // 22007 invalid_datetime_format, quoted value found.
    const notDate = await create(createEvent({ ...samplePerson('DSQL-22B'), DOB: 'soon' }));
    expect(bodyOf(notDate)).toMatchObject({ field: 'DOB' });
    expect(notDate.statusCode).toBe(400);
    // 23502 not_null_violation names its column.
    const noName = await create(createEvent({ ...samplePerson('DSQL-23'), LastName: null }));
    expect(noName.statusCode).toBe(400);
    expect(bodyOf(noName).field).toBe('LastName');
    // Nothing was written, and the kept connection served them all.
    const rows = await admin.query(
      "SELECT govid FROM person WHERE govid IN ('DSQL-22A', 'DSQL-22B', 'DSQL-23')",
    );
    expect(rows.rowCount).toBe(0);
    expect(s.socketsOpened()).toBe(opened);
    await expect(
      s.create({ ...samplePerson('DSQL-22C'), DOB: '0000-02-30' }, deadline()),
    ).rejects.toMatchObject({
      name: 'InvalidInputError',
      field: 'DOB',
    });
  });

  it('keeps one connection per environment with keep-alive on, one per call with it off', async () => {
    const on = store('on');
    const off = store('off');
    const counts = { on: [] as number[], off: [] as number[] };
    for (let i = 0; i < 5; i++) {
      for (const [name, s] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const m = await measureDb(s, () => s.get('DSQL-1', deadline()));
        expect(m.outcome.ok).toBe(true);
        counts[name].push(m.dbRequests);
      }
    }
    expect(on.socketsOpened()).toBe(1);
    expect(off.socketsOpened()).toBe(5);
    // SSLRequest, StartupMessage, PasswordMessage + Parse, Bind, Describe, Execute, Sync (+ Terminate).
    expect(counts.on).toEqual([8, 5, 5, 5, 5]);
    expect(counts.off).toEqual([9, 9, 9, 9, 9]);
  });

  it('lets one of many concurrent creates of a GovId win', async () => {
    const contenders = Array.from({ length: 8 }, () => store('on'));
    const outcomes = await Promise.all(
      contenders.map((s, i) => s.create({ ...samplePerson('DSQL-RACE'), FirstName: `C${i}` }, deadline())),
    );
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'exists')).toHaveLength(7);
  });

  it('runs at repeatable read: a conflicting concurrent write gets 40001', async () => {
    await admin.query(
      "INSERT INTO person (govid, first_name, last_name, dob, govid_type) VALUES ('DSQL-RR', 'A', 'B', '2000-01-01', 'Passport')",
    );
    const other = await local.admin();
    try {
      expect((await admin.query('SHOW default_transaction_isolation')).rows[0]).toEqual({
        default_transaction_isolation: 'repeatable read',
      });
      await admin.query('BEGIN');
      await admin.query("SELECT * FROM person WHERE govid = 'DSQL-RR'");
      await other.query("UPDATE person SET address = 'other' WHERE govid = 'DSQL-RR'");
      await expect(
        admin.query("UPDATE person SET address = 'mine' WHERE govid = 'DSQL-RR'"),
      ).rejects.toMatchObject({
        code: '40001',
      });
    } finally {
      await admin.query('ROLLBACK');
      await other.end();
    }
  });

  it('sends a statement again after a 40001 conflict, bounded', async () => {
    const s = store('on');
    await s.get('DSQL-1', deadline()); // connected: only the conflict is measured below
    const writer = await local.admin();
    try {
      await writer.query('BEGIN');
      await writer.query(
        "INSERT INTO person (govid, first_name, last_name, dob, govid_type) VALUES ('DSQL-OCC', 'Other', 'Writer', '2000-01-01', 'Passport')",
      );
      // The open transaction's row conflicts with every attempt (DSQL: OC000, 40001); the store
      // sends the statement MAX_CONFLICT_ATTEMPTS times, then gives up with the conflict.
      const conflicted = await measureDb(s, () => s.create(samplePerson('DSQL-OCC'), deadline()));
      expect(conflicted.outcome).toMatchObject({ ok: false, error: { code: '40001', message: OC000 } });
      expect(s.conflictRetries()).toBe(MAX_CONFLICT_ATTEMPTS - 1);
      // Parse, Bind, Describe, Execute, Sync per attempt.
      expect(conflicted.dbRequests).toBe(5 * MAX_CONFLICT_ATTEMPTS);
      await writer.query('COMMIT');
      expect(await s.create(samplePerson('DSQL-OCC'), deadline())).toBe('exists');
    } finally {
      await writer.end();
    }
  });

  it('overwrites, updates and queries', async () => {
    const s = store('on');
    await s.create({ ...samplePerson('DSQL-Q1'), GovIdType: 'QueryType' }, deadline());
    await sleep(5);
    await s.create({ ...samplePerson('DSQL-Q2'), GovIdType: 'QueryType' }, deadline());
    expect((await s.query('QueryType', 10, deadline())).map((p) => p.GovId)).toEqual(['DSQL-Q2', 'DSQL-Q1']);
    expect(
      await s.overwrite({ ...samplePerson('DSQL-Q1'), GovIdType: 'QueryType', LastName: 'New' }, deadline()),
    ).toBe('replaced');
    expect((await s.query('QueryType', 1, deadline())).map((p) => p.GovId)).toEqual(['DSQL-Q1']);
    expect(await s.overwrite(samplePerson('DSQL-MISSING'), deadline())).toBe('missing');
    expect(await s.update('DSQL-Q2', { Address: 'Moved' }, deadline())).toMatchObject({
      GovId: 'DSQL-Q2',
      Address: 'Moved',
    });
    expect(await s.update('DSQL-MISSING', { Address: 'x' }, deadline())).toBeUndefined();
  });

  it('recycles a kept connection past its age limit', async () => {
    const s = store('on', { maxConnectionAgeMs: 50 });
    await s.get('DSQL-1', deadline());
    await sleep(80);
    const m = await measureDb(s, () => s.get('DSQL-1', deadline()));
    expect(m).toMatchObject({ newConnection: true, outcome: { ok: true } });
    expect(s.socketsOpened()).toBe(2);
  });

  it('reopens a kept connection the server closed, once', async () => {
    const s = store('on');
    await s.get('DSQL-1', deadline());
    // The server ends every session of the role, as DSQL does at its 60-minute limit.
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'lab_app'");
    await sleep(100);
    const m = await measureDb(s, () => s.get('DSQL-1', deadline()));
    expect(m).toMatchObject({ newConnection: true, outcome: { ok: true } });
  });
});

describe('IAM tokens at the DSQL front', () => {
  it('accepts a valid DbConnect token for the role and DbConnectAdmin for admin', async () => {
    const client = await connectWith(await local.tokens('DbConnect').token());
    expect((await client.query('SELECT current_user AS u')).rows).toEqual([{ u: ROLE }]);
    await client.end();
    const root = await connectWith(await local.tokens('DbConnectAdmin').token(), 'admin');
    await root.end();
  });

  const refusals: [string, () => Promise<string>, RegExp, string?][] = [
    ['an unsigned token', async () => `${LOCAL_DSQL_HOST}/?Action=DbConnect`, /not signed/],
    ['a plain password', async () => 'hunter2', /not a DSQL auth token/],
    ['an expired token', () => signedToken('DbConnect', 3600, 900), /expired/],
    [
      'a tampered token',
      async () =>
        (await signedToken('DbConnect', 0, 900)).replace(
          /X-Amz-Signature=(.)/,
          (_, c) => `X-Amz-Signature=${c === 'a' ? 'b' : 'a'}`,
        ),
      /does not match/,
    ],
    [
      'a token of another key',
      () => signedToken('DbConnect', 0, 900, { accessKeyId: 'other', secretAccessKey: 'x' }),
      /unknown key/,
    ],
    [
      'a DbConnect token for admin',
      () => signedToken('DbConnect', 0, 900),
      /^Wrong user to action mapping\. user: admin, action: DbConnect$/,
      'admin',
    ],
  ];
  it.each(refusals)('refuses %s with a PostgreSQL error', async (_name, token, reason, user = ROLE) => {
    const refusedBefore = local.front.stats().refused;
    const error = await connectWith(await token(), user).then(
      (c) => c.end().then(() => undefined),
      (e: unknown) => e,
    );
    // DSQL's refusal, with the reason in the hint.
    expect(error).toMatchObject({
      code: '08006',
      severity: 'FATAL',
      message: 'unable to accept connection, access denied',
    });
    expect((error as { hint?: string }).hint).toMatch(reason);
    expect(local.front.stats().refused).toBe(refusedBefore + 1);
  });

  it('signs a token once and reuses it until shortly before it expires', async () => {
    let now = Date.now();
    const { dsqlTokenSource } = await import('../../targets/dsql/token');
    const tokens = dsqlTokenSource({
      hostname: LOCAL_DSQL_HOST,
      region: LOCAL_REGION,
      action: 'DbConnect',
      credentials: LOCAL_CREDENTIALS,
      now: () => now,
    });
    const first = await tokens.token();
    now += 800_000;
    expect(await tokens.token()).toBe(first);
    now += 50_000; // 850 s of 900: inside the 60 s margin
    await tokens.token();
    expect(tokens.signed()).toBe(2);
  });
});

describe('readDsqlEnv', () => {
  const base = { DSQL_CLUSTER_ID: 'abc123', AWS_REGION: 'eu-west-1', DSQL_USER: ROLE, KEEP_ALIVE: 'on' };
  it('names the cluster endpoint from its id and region', () => {
    expect(readDsqlEnv(base).endpoint).toEqual({
      host: 'abc123.dsql.eu-west-1.on.aws',
      port: 5432,
      user: ROLE,
    });
  });
  it('fails the init with the variable that is missing or bad', () => {
    expect(() => readDsqlEnv({ ...base, DSQL_USER: undefined })).toThrow(/DSQL_USER/);
    expect(() => readDsqlEnv({ ...base, DSQL_USER: 'admin' })).toThrow(EnvError);
    expect(() => readDsqlEnv({ ...base, DSQL_PORT: 'x' })).toThrow(/DSQL_PORT/);
  });
});
