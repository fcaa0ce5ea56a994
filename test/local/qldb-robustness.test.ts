/**
 * No statement takes the local QLDB engine down or holds it up. Each statement that used to kill
 * the engine's process (a lone surrogate, CAST('abc' AS DECIMAL), TO_TIMESTAMP('13-2016', ...),
 * DATE_ADD past year 9999, 5,000 ORs, 10,000 nested parentheses) or stall it (`1d3000000` + 1, a
 * LIKE that backtracks, a statement that runs long) is sent through the real HTTP endpoint, as the
 * SDK sends it. Each must answer QLDB's error or its documented value within 1 s (asserted with 3x
 * slack), the engine's process must be the same one afterwards, and the documents written before
 * must still be there. Another client's statement must not wait behind a long one. The inputs that
 * were already refused quickly (a 1 MB literal, 10,000-deep Ion, NUL bytes, unterminated strings,
 * the statement, parameter, document and transaction quotas) must go on being refused quickly.
 * https://docs.aws.amazon.com/qldb/latest/developerguide/limits.html
 */
import { CreateLedgerCommand, QLDBClient } from '@aws-sdk/client-qldb';
import { QLDBSessionClient, SendCommandCommand, type ValueHolder } from '@aws-sdk/client-qldb-session';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { dom, dumpBinary, dumpText } from 'ion-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type QldbEngine, startQldbEngine } from '../../targets/qldb/engine';

const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const LEDGER = 'robust';
/** The answer each statement must give within 1 s, asserted with the 3x slack the tests allow. */
const ANSWER_WITHIN_MS = 3_000;
/** "These already answer a QLDB-shaped error within 300 ms" (the issue), with 3x slack. */
const QUICK_WITHIN_MS = 900;
const STATEMENT_BUDGET_MS = 1_000;
const REQUEST_TIMEOUT_MS = 5_000;

let engine: QldbEngine;
let client: QLDBSessionClient;

interface Answer {
  readonly ms: number;
  /** The result values as Ion text, when the statement succeeded. */
  readonly values?: string[];
  /** The error's code (the SDK's exception name) and message, when it was refused. */
  readonly error?: { readonly name: string; readonly message: string; readonly status?: number };
}

async function session(): Promise<{ token: string; transaction: string }> {
  const start = await client.send(new SendCommandCommand({ StartSession: { LedgerName: LEDGER } }));
  const token = start.StartSession?.SessionToken ?? '';
  const txn = await client.send(new SendCommandCommand({ SessionToken: token, StartTransaction: {} }));
  return { token, transaction: txn.StartTransaction?.TransactionId ?? '' };
}

/** One statement in a transaction of its own (never committed), timed from send to answer. */
async function execute(statement: string, parameters: ValueHolder[] = [], via = client): Promise<Answer> {
  const start = await via.send(new SendCommandCommand({ StartSession: { LedgerName: LEDGER } }));
  const SessionToken = start.StartSession?.SessionToken ?? '';
  const txn = await via.send(new SendCommandCommand({ SessionToken, StartTransaction: {} }));
  const TransactionId = txn.StartTransaction?.TransactionId ?? '';
  const began = performance.now();
  try {
    const out = await via.send(
      new SendCommandCommand({
        SessionToken,
        ExecuteStatement: { TransactionId, Statement: statement, Parameters: parameters },
      }),
    );
    const values = (out.ExecuteStatement?.FirstPage?.Values ?? []).map((v) =>
      dumpText(dom.load(v.IonBinary ?? new Uint8Array()) as dom.Value),
    );
    return { ms: performance.now() - began, values };
  } catch (err) {
    const e = err as Error & { $metadata?: { httpStatusCode?: number } };
    return {
      ms: performance.now() - began,
      error: { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode },
    };
  } finally {
    await via.send(new SendCommandCommand({ SessionToken, EndSession: {} })).catch(() => {});
  }
}

/** Runs statements in one transaction and commits it (the digest as the driver computes it). */
async function commitStatements(statements: readonly [string, ...unknown[]][]): Promise<void> {
  const { statementDigest, stringHash, ionHash } = await import('../../targets/qldb/engine');
  const { token, transaction } = await session();
  let digest = stringHash(transaction);
  for (const [statement, ...params] of statements) {
    const binary = params.map((p) => dumpBinary(p));
    await client.send(
      new SendCommandCommand({
        SessionToken: token,
        ExecuteStatement: {
          TransactionId: transaction,
          Statement: statement,
          Parameters: binary.map((b) => ({ IonBinary: b })),
        },
      }),
    );
    digest = statementDigest(
      digest,
      statement,
      binary.map((b) => ionHash(b)),
    );
  }
  await client.send(
    new SendCommandCommand({
      SessionToken: token,
      CommitTransaction: { TransactionId: transaction, CommitDigest: digest },
    }),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const PEOPLE = Array.from({ length: 40 }, (_, i) => ({ GovId: `ROBUST-${i}`, n: i }));

/** An engine with the ledger, the table and PEOPLE committed. */
async function startEngine(): Promise<void> {
  client?.destroy();
  engine = await startQldbEngine({ statementBudgetMs: STATEMENT_BUDGET_MS });
  const control = new QLDBClient({ region: REGION, credentials: CREDENTIALS, endpoint: engine.endpoint });
  await control.send(
    new CreateLedgerCommand({ Name: LEDGER, PermissionsMode: 'STANDARD', DeletionProtection: false }),
  );
  control.destroy();
  client = sessionClient();
  await commitStatements([['CREATE TABLE Person'], ['CREATE INDEX ON Person (GovId)']]);
  await commitStatements(PEOPLE.map((p) => ['INSERT INTO Person ?', p] as [string, unknown]));
}

beforeAll(startEngine, 30_000);

/** A client that gives up on an answer after REQUEST_TIMEOUT_MS (a hung engine fails the case, not the run). */
function sessionClient(): QLDBSessionClient {
  return new QLDBSessionClient({
    region: REGION,
    credentials: CREDENTIALS,
    endpoint: engine.endpoint,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ requestTimeout: REQUEST_TIMEOUT_MS, throwOnRequestTimeout: true }),
  });
}

// Each case starts from a live, answering engine, so that a case fails on its own statement, not
// on an earlier one's crash or stall (with the engine as it should be, this never restarts anything).
beforeEach(async () => {
  const answering =
    alive(engine.pid) && (await execute('SELECT VALUE 1 FROM Person').catch(() => undefined))?.values;
  if (answering) return;
  await engine.stop();
  await startEngine();
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await engine?.stop();
});

/** The engine's process is the one started, and the documents committed before are all there. */
async function expectEngineIntact(pid: number): Promise<void> {
  expect(engine.pid).toBe(pid);
  expect(alive(pid)).toBe(true);
  const count = await execute('SELECT VALUE COUNT(*) FROM Person');
  expect(count.values).toEqual([String(PEOPLE.length)]);
  const one = await execute("SELECT VALUE n FROM Person WHERE GovId = 'ROBUST-7'");
  expect(one.values).toEqual(['7']);
}

const ors = Array.from({ length: 5_000 }, (_, i) => `n = ${i + 100}`).join(' OR ');

describe('statements that used to end or stall the engine', () => {
  it.each<[string, string, (a: Answer) => void]>([
    [
      'a lone surrogate (the commit digest cannot hash it)',
      "SELECT VALUE 'x\ud800' FROM Person",
      (a) => {
        expect(a.error?.name).toBe('BadRequestException');
        expect(a.error?.message).toMatch(/lone surrogate/);
      },
    ],
    [
      "CAST('abc' AS DECIMAL)",
      "SELECT VALUE CAST('abc' AS DECIMAL) FROM Person WHERE GovId = 'ROBUST-1'",
      (a) => {
        expect(a.error?.name).toBe('BadRequestException');
        expect(a.error?.message).toMatch(/Cannot cast STRING to DECIMAL/);
      },
    ],
    [
      "TO_TIMESTAMP('13-2016', 'MM-yyyy')",
      "SELECT VALUE TO_TIMESTAMP('13-2016', 'MM-yyyy') FROM Person WHERE GovId = 'ROBUST-1'",
      (a) => {
        expect(a.error?.name).toBe('BadRequestException');
        expect(a.error?.message).toMatch(/TO_TIMESTAMP cannot parse '13-2016'/);
      },
    ],
    [
      'DATE_ADD(year, 10000, ...)',
      "SELECT VALUE DATE_ADD(year, 10000, `2017-01-10T`) FROM Person WHERE GovId = 'ROBUST-1'",
      (a) => {
        expect(a.error?.name).toBe('BadRequestException');
        expect(a.error?.message).toMatch(/DATE_ADD/);
      },
    ],
    [
      '5,000 ORs',
      // The indexed GovId narrows the rows to one, so the case measures the ORs, not a scan of them.
      `SELECT VALUE n FROM Person WHERE GovId = 'ROBUST-3' AND (n = 3 OR ${ors})`,
      (a) => expect(a.values).toEqual(['3']),
    ],
    [
      '10,000 nested parentheses',
      `SELECT VALUE ${'('.repeat(10_000)}1${')'.repeat(10_000)} FROM Person`,
      (a) => {
        expect(a.error?.name).toBe('BadRequestException');
        expect(a.error?.message).toMatch(
          /^Parser Error: at line 1, column \d+: The expression nests deeper than 200/,
        );
      },
    ],
    [
      '`1d3000000` + 1 (38 significant digits, as PartiQL keeps)',
      "SELECT VALUE `1d3000000` + 1 FROM Person WHERE GovId = 'ROBUST-1'",
      (a) => expect(a.values).toEqual([`1${'0'.repeat(37)}d2999963`]),
    ],
    [
      "LIKE '%a%a%a%a%a%b' over 100 characters",
      `SELECT VALUE '${'a'.repeat(100)}' LIKE '%a%a%a%a%a%b' FROM Person WHERE GovId = 'ROBUST-1'`,
      (a) => expect(a.values).toEqual(['false']),
    ],
  ])('%s: answers within 1 s, and the engine and its data are intact', async (_name, statement, check) => {
    const pid = engine.pid;
    const answer = await execute(statement);
    check(answer);
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
    await expectEngineIntact(pid);
  });

  it('refuses a document nested deeper than 1,000 levels, which could not be journaled safely', async () => {
    const pid = engine.pid;
    const deep = `{GovId: "DEEP", a: ${'['.repeat(2_000)}${']'.repeat(2_000)}}`;
    const answer = await execute('INSERT INTO Person ?', [{ IonText: deep }]);
    expect(answer.error?.name).toBe('BadRequestException');
    expect(answer.error?.message).toMatch(/nests 2001 levels deep, over the local engine's limit of 1000/);
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
    await expectEngineIntact(pid);
  });

  it('stops a statement past its evaluation budget, and another client is answered meanwhile', async () => {
    const pid = engine.pid;
    const other = sessionClient();
    try {
      // 40^5 rows: minutes of work without the budget.
      const long = execute(
        'SELECT VALUE COUNT(*) FROM Person a, Person b, Person c, Person d, Person e',
        [],
        client,
      );
      // Sent once the long statement is running: the other client's whole exchange (session,
      // transaction, statement) waits at most for the budget to run out.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = performance.now();
      const quick = await execute("SELECT VALUE 1 FROM Person WHERE GovId = 'ROBUST-1'", [], other);
      const waited = performance.now() - sent;
      const stopped = await long;
      expect(stopped.error?.name).toBe('BadRequestException');
      expect(stopped.error?.message).toMatch(/evaluation budget of 1000 ms/);
      expect(stopped.ms).toBeLessThan(STATEMENT_BUDGET_MS * 3);
      expect(quick.values).toEqual(['1']);
      expect(waited).toBeLessThan(STATEMENT_BUDGET_MS * 3);
    } finally {
      other.destroy();
    }
    await expectEngineIntact(pid);
  });
});

describe('inputs that were already refused quickly stay so', () => {
  const deepIon = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  it.each<[string, () => Promise<Answer>, RegExp]>([
    [
      'a 1 MB literal',
      () => execute(`SELECT VALUE '${'x'.repeat(1024 * 1024)}' FROM Person`),
      /over the limit of 100000/,
    ],
    ['10,000-deep Ion in a literal', () => execute(`SELECT VALUE \`${deepIon}\` FROM Person`), /./],
    ['10,000-deep Ion as a parameter', () => execute('INSERT INTO Person ?', [{ IonText: deepIon }]), /./],
    ['NUL bytes', () => execute('SELECT * FROM Person\u0000\u0000'), /unexpected character/],
    ['an unterminated string', () => execute("SELECT VALUE 'abc FROM Person"), /unterminated string/],
    ['an unterminated comment', () => execute('SELECT * FROM Person /* no end'), /unterminated comment/],
    [
      'a statement of 100,001 characters',
      () => execute(`SELECT * FROM Person${' '.repeat(100_001 - 20)}`),
      /over the limit of 100000/,
    ],
    [
      'a parameter over 1 MB of Ion text',
      () => execute('INSERT INTO Person ?', [{ IonText: `{s: "${'x'.repeat(1024 * 1024)}"}` }]),
      /over the limit of 1048576 bytes/,
    ],
    [
      'a document over 128 KiB',
      () => execute('INSERT INTO Person ?', [{ IonBinary: dumpBinary({ s: 'x'.repeat(129 * 1024) }) }]),
      /over the limit of 131072 bytes/,
    ],
  ])('%s: a QLDB error within 300 ms', async (_name, send, message) => {
    const pid = engine.pid;
    const answer = await send();
    expect(answer.error?.name).toBe('BadRequestException');
    expect(answer.error?.message).toMatch(message);
    expect(answer.ms).toBeLessThan(QUICK_WITHIN_MS);
    await expectEngineIntact(pid);
  });
});
