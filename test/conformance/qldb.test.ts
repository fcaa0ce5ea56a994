/**
 * Conformance of the local QLDB Session endpoint, driven by pyqldb (the Python driver; the lab
 * itself uses the Node driver) through the network model with TLS, as the lab serves it: the
 * client trusts the lab's CA through AWS_CA_BUNDLE and finds the endpoint through
 * AWS_ENDPOINT_URL_QLDB_SESSION. Each case states what QLDB does and where AWS says so; the
 * script (test/conformance/clients/qldb_driver.py) reports what the driver saw, this file asserts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import { type NetworkModel, startNetworkModel } from '../../local/network/network-model';
import { ensureCertificates } from '../../local/tls/certificates';
import {
  QLDB_DEFAULTS,
  type QldbEngine,
  QldbSessionService,
  startQldbEngine,
  statementDigest,
  stringHash,
} from '../../targets/qldb/engine';
import { MAX_DOCUMENTS_PER_TRANSACTION } from '../../targets/qldb/engine/ledger';
import { runPythonClient } from './support/clients';

/** Ledgers the engine knows; one per case, so list_tables() sees only that case's tables. */
const LEDGERS = ['round-trip', 'list-tables', 'numbers', 'documents-40', 'documents-41', 'expire'];
/** Short enough to wait out in a test, long enough for the statements before the wait. */
const SHORT_TRANSACTION_MS = 1_500;
const RTT_MS = 2;

interface ClientError {
  readonly code?: string;
  readonly message?: string;
  readonly status?: number;
  readonly transactionExpired?: boolean;
  readonly type?: string;
}
type Reported<T> = T & { readonly error?: ClientError; readonly unexpected?: ClientError };

interface Served {
  readonly engine: QldbEngine;
  readonly model: NetworkModel;
}

let certDir: string;
let caCertPath: string;
let lab: Served;
/** An engine whose transactions expire after SHORT_TRANSACTION_MS, so the expiry case need not wait 30 s. */
let shortLived: Served;

async function serve(options: Parameters<typeof startQldbEngine>[0]): Promise<Served> {
  const engine = await startQldbEngine(options);
  try {
    const certs = await ensureCertificates(certDir);
    const model = await startNetworkModel({
      upstreamHost: '127.0.0.1',
      upstreamPort: engine.port,
      tls: certs,
      rttMs: RTT_MS,
    });
    return { engine, model };
  } catch (err) {
    await engine.stop();
    throw err;
  }
}

async function stop(served: Served | undefined): Promise<void> {
  await served?.model.close();
  await served?.engine.stop();
}

function pyqldb<T>(served: Served, args: readonly string[], timeoutMs = 60_000): Promise<Reported<T>> {
  return runPythonClient<Reported<T>>('qldb_driver.py', args, {
    timeoutMs,
    env: {
      AWS_ENDPOINT_URL_QLDB_SESSION: served.model.url,
      AWS_CA_BUNDLE: caCertPath,
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      // Nothing from the machine's own AWS set-up may reach the client.
      AWS_CONFIG_FILE: '/dev/null',
      AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
    },
  });
}

/** A ledger stays CREATING and DELETING this long on the control-plane engine. */
const TRANSITION_MS = 500;
let controlPlane: Served;

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'qldb-conformance-tls-'));
  caCertPath = (await ensureCertificates(certDir)).caCertPath;
  lab = await serve({ ledgers: LEDGERS });
  controlPlane = await serve({ ledgerTransitionMs: TRANSITION_MS });
  shortLived = await serve({ ledgers: ['expire'], transactionTimeoutMs: SHORT_TRANSACTION_MS });
}, 60_000);

afterAll(async () => {
  await stop(lab);
  await stop(controlPlane);
  await stop(shortLived);
  if (certDir) await rm(certDir, { recursive: true, force: true });
});

describe('QLDB Session endpoint, driven by pyqldb over TLS', () => {
  // One interpreter runs every case below (qldb_driver.py --batch, a thread per case, each on a
  // ledger of its own), and the expiry case beside it on its short-lived engine: each pyqldb start
  // costs a second of a core to import botocore and pyqldb. The cases assert what each reported.
  const BATCH = [
    ['round-trip', 'round-trip'],
    ['list-tables', 'list-tables', 'Vehicle', 'Person'],
    ['numbers', 'numbers'],
    ['documents', 'documents-40', '40'],
    ['documents', 'documents-41', '41'],
    ['unknown-ledger', 'no-such-ledger'],
  ] as const;
  let reported: Reported<unknown>[];
  let expired: Reported<{ committed?: boolean; attempts: number; storedAfter: number }>;
  /** What the batch reported for the case on this ledger. */
  const seen = <T>(ledger: (typeof BATCH)[number][1]): Reported<T> =>
    reported[BATCH.findIndex((c) => c[1] === ledger)] as Reported<T>;

  beforeAll(async () => {
    [reported, expired] = await Promise.all([
      pyqldb<Reported<unknown>[]>(lab, ['--batch', JSON.stringify(BATCH)], 120_000),
      pyqldb<{ committed?: boolean; attempts: number; storedAfter: number }>(shortLived, [
        'expire',
        'expire',
        String((SHORT_TRANSACTION_MS + 1_500) / 1000),
      ]),
    ]);
    expect(reported).toHaveLength(BATCH.length);
  }, 150_000);

  // The driver's basic path: StartSession, StartTransaction, ExecuteStatement with Ion parameters,
  // CommitTransaction whose CommitDigest pyqldb checks against the digest it computed itself.
  // https://docs.aws.amazon.com/qldb/latest/developerguide/driver-quickstart-python.html
  it('runs a round trip: create table and index, insert, select with a parameter, commit digests accepted', async () => {
    const out = seen<{
      created: number;
      indexed: number;
      inserted: number;
      selected: string[];
      missing: string[];
      tables: string[];
    }>('round-trip');
    expect(out.unexpected).toBeUndefined();
    expect(out).toMatchObject({ created: 1, indexed: 1, inserted: 1, missing: [], tables: ['Person'] });
    expect(out.selected).toEqual(['{FirstName:"Ada",Age:36}']);
  });

  // pyqldb's list_tables() sends "SELECT VALUE name FROM information_schema.user_tables WHERE
  // status = 'ACTIVE'" (pyqldb/driver/qldb_driver.py); the driver's integration test
  // test_list_tables expects the table names back.
  // https://github.com/awslabs/amazon-qldb-driver-python/blob/master/tests/integration/test_statement_execution.py
  it('answers list_tables() with the names of the active tables', async () => {
    const out = seen<{ tables: string[] }>('list-tables');
    expect(out.unexpected).toBeUndefined();
    expect(out.tables).toEqual(['Person', 'Vehicle']);
  });

  // PartiQL compares numbers by value across Ion's int, decimal and float (7 = 7.0 = 7e0), and a
  // negative literal is a number like any other. QLDB's PartiQL reference: "Data types" and
  // "Equality" https://docs.aws.amazon.com/qldb/latest/developerguide/ql-reference.data-types.html
  // https://partiql.org/assets/PartiQL-Specification.pdf
  it('finds 7 as int, decimal and float for WHERE n = 7, 7.0 or a parameter, and -7 for WHERE n = -7, with or without an index', async () => {
    type Found = Record<'eq7' | 'eq7.0' | 'eqMinus7' | 'eqParamDecimal' | 'eqParamFloat', string[]>;
    const out = seen<{ Scanned: Found; Indexed: Found }>('numbers');
    expect(out.unexpected).toBeUndefined();
    const seven = ['decimal', 'float', 'int'];
    for (const table of [out.Scanned, out.Indexed]) {
      expect(table).toEqual({
        eq7: seven,
        'eq7.0': seven,
        eqMinus7: ['negative'],
        eqParamDecimal: seven,
        eqParamFloat: seven,
      });
    }
  });

  // QLDB's fixed quota: "Number of documents in a transaction: 40".
  // https://docs.aws.amazon.com/qldb/latest/developerguide/limits.html#limits.fixed
  // QLDB documents the quota, not the error's wording: the endpoint answers BadRequestException
  // (which the drivers do not retry) naming the limit, and nothing of the transaction commits.
  it('commits a transaction that modifies 40 documents and refuses one that modifies 41, committing none of it', async () => {
    expect(MAX_DOCUMENTS_PER_TRANSACTION).toBe(40);
    type Outcome = { committed?: boolean; attempts: number; stored: number };
    const [forty, fortyOne] = [seen<Outcome>('documents-40'), seen<Outcome>('documents-41')];
    expect(forty.unexpected).toBeUndefined();
    expect(forty).toMatchObject({ committed: true, attempts: 1, stored: 40 });
    expect(fortyOne.unexpected).toBeUndefined();
    expect(fortyOne.committed).toBeUndefined();
    expect(fortyOne.error).toMatchObject({ code: 'BadRequestException', status: 400 });
    expect(fortyOne.error?.message).toMatch(/limit of 40 documents/);
    expect(fortyOne).toMatchObject({ attempts: 1, stored: 0 });
  });

  // "InvalidSessionException. Message: Transaction transactionId has expired. A transaction can
  // run for up to 30 seconds before being committed. After this timeout limit, any work done on
  // the transaction is rejected, and QLDB discards the session."
  // https://docs.aws.amazon.com/qldb/latest/developerguide/driver-errors.html
  // The drivers recognise it by that message (pyqldb is_transaction_expired_exception) and do not
  // retry it. Held past the limit and past the engine's once-a-second sweep of expired sessions,
  // which must not turn the answer into "No such session".
  it('fails a transaction held past the limit with InvalidSessionException "Transaction <id> has expired", not retried, nothing committed', async () => {
    const out = expired;
    expect(out.unexpected).toBeUndefined();
    expect(out.committed).toBeUndefined();
    expect(out.error).toMatchObject({
      code: 'InvalidSessionException',
      status: 400,
      transactionExpired: true,
    });
    expect(out.error?.message).toMatch(/^Transaction \S+ has expired$/);
    expect(out).toMatchObject({ attempts: 1, storedAfter: 0 });
  });

  // The Node driver's integration test "Throws exception when connecting to a non-existent ledger"
  // expects BadRequestException (pyqldb's test_connect_to_non_existent_ledger expects a
  // ClientError). The message QLDB sends is not documented; ours names the ledger.
  // https://github.com/awslabs/amazon-qldb-driver-nodejs/blob/master/src/integrationtest/SessionManagement.test.ts
  it('refuses a ledger that does not exist with BadRequestException', async () => {
    const out = seen<{ tables?: string[] }>('no-such-ledger');
    expect(out.unexpected).toBeUndefined();
    expect(out.tables).toBeUndefined();
    expect(out.error).toMatchObject({ code: 'BadRequestException', status: 400, transactionExpired: false });
    expect(out.error?.message).toMatch(/no-such-ledger/);
  });
});

describe("QLDB's 30-second transaction limit, on the engine's own clock", () => {
  // "Transaction timeout: 30 seconds" (quotas page) is the default; a clock the test moves shows
  // the limit without waiting it out: a commit at 29.9 s succeeds, a statement at 30.1 s is
  // answered "Transaction <id> has expired", and so is every command on that session afterwards.
  // https://docs.aws.amazon.com/qldb/latest/developerguide/limits.html#limits.fixed
  it('defaults to 30 s: a transaction commits within it and expires after it', async () => {
    expect(QLDB_DEFAULTS.transactionTimeoutMs).toBe(30_000);
    let now = 1_000_000;
    const service = new QldbSessionService({ ledgers: ['clock'], now: () => now });
    const token = (await service.send({ StartSession: { LedgerName: 'clock' } })).StartSession?.SessionToken;

    const begin = async () =>
      (await service.send({ SessionToken: token, StartTransaction: {} })).StartTransaction?.TransactionId ??
      '';
    const first = await begin();
    await service.send({
      SessionToken: token,
      ExecuteStatement: { TransactionId: first, Statement: 'CREATE TABLE Early', Parameters: [] },
    });
    now += 29_900;
    // The digest the driver would send: the transaction id's hash dotted with the statement's.
    const digest = statementDigest(stringHash(first), 'CREATE TABLE Early', []);
    await expect(
      service.send({
        SessionToken: token,
        CommitTransaction: { TransactionId: first, CommitDigest: digest },
      }),
    ).resolves.toMatchObject({ CommitTransaction: { TransactionId: first } });

    const second = await begin();
    expect(second).not.toBe(first);
    now += 30_100;
    const late = service.send({
      SessionToken: token,
      ExecuteStatement: { TransactionId: second, Statement: 'CREATE TABLE Late', Parameters: [] },
    });
    await expect(late).rejects.toMatchObject({
      code: 'InvalidSessionException',
      message: `Transaction ${second} has expired`,
    });
    now += 5_000;
    await expect(service.send({ SessionToken: token, AbortTransaction: {} })).rejects.toMatchObject({
      code: 'InvalidSessionException',
      message: `Transaction ${second} has expired`,
    });
    expect(service.openSessions).toBe(0);
    expect(service.ledger('clock')?.tableNames()).toEqual(['Early']);
  });
});

interface Step<T> {
  readonly ok?: T;
  readonly error?: ClientError;
}

describe('the control plane, driven by boto3 (qldb and qldb-session)', () => {
  // CreateLedger answers CREATING and the ledger turns ACTIVE (the driver's own integration tests
  // poll DescribeLedger for it); DeletionProtection defaults to true; DeleteLedger is refused while
  // it is on (ResourcePreconditionNotMetException, 412); DescribeLedger of a ledger that does not
  // exist is ResourceNotFoundException (404); a second CreateLedger of a name is
  // ResourceAlreadyExistsException (409); a session on a ledger that is not ACTIVE is refused.
  // https://docs.aws.amazon.com/qldb/latest/developerguide/API_CreateLedger.html
  // https://docs.aws.amazon.com/qldb/latest/developerguide/API_DeleteLedger.html
  // https://docs.aws.amazon.com/qldb/latest/developerguide/API_UpdateLedger.html
  // https://docs.aws.amazon.com/qldb/latest/developerguide/API_DescribeLedger.html
  it('takes a ledger through CREATING, ACTIVE, protected, unprotected and deleted', async () => {
    const r = await runPythonClient<{
      create: { State: string; DeletionProtection: boolean };
      sessionWhileCreating: Step<string>;
      activeState: string;
      duplicate: Step<unknown>;
      listed: boolean;
      deleteProtected: Step<unknown>;
      update: Step<boolean>;
      delete: Step<string>;
      describeAfterDelete: Step<string>;
      sessionAfterDelete: Step<string>;
      describeNeverCreated: Step<unknown>;
      invalidName: Step<unknown>;
    }>('qldb_control.py', ['life-1'], {
      timeoutMs: 60_000,
      env: {
        AWS_ENDPOINT_URL_QLDB: controlPlane.model.url,
        AWS_ENDPOINT_URL_QLDB_SESSION: controlPlane.model.url,
        AWS_CA_BUNDLE: caCertPath,
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      },
    });
    expect(r.create).toEqual({ State: 'CREATING', DeletionProtection: true });
    expect(r.sessionWhileCreating.error).toMatchObject({ code: 'BadRequestException', status: 400 });
    expect(r.activeState).toBe('ACTIVE');
    expect(r.duplicate.error).toMatchObject({ code: 'ResourceAlreadyExistsException', status: 409 });
    expect(r.listed).toBe(true);
    expect(r.deleteProtected.error).toMatchObject({
      code: 'ResourcePreconditionNotMetException',
      status: 412,
    });
    expect(r.update.ok).toBe(false);
    expect(r.delete.ok).toBe('deleted');
    expect(r.describeAfterDelete.error).toMatchObject({ code: 'ResourceNotFoundException', status: 404 });
    expect(r.sessionAfterDelete.error).toMatchObject({ code: 'BadRequestException', status: 400 });
    expect(r.describeNeverCreated.error).toMatchObject({ code: 'ResourceNotFoundException', status: 404 });
    expect(r.invalidName.error).toMatchObject({ code: 'InvalidParameterException', status: 400 });
  });
});
