/**
 * Fuzzes the local QLDB engine (targets/qldb/engine) with PartiQL from qldb-grammar.ts, each
 * statement in a transaction of its own through the QLDB Session endpoint: SendCommand's
 * StartTransaction, ExecuteStatement, FetchPage and CommitTransaction with the SDK's session
 * client. Not the driver: it refuses to send what it cannot hash (a lone surrogate), and the
 * engine must answer that too. The commit digest is computed as the driver computes it; where
 * that fails, a wrong one is sent, which the engine must refuse. For each input: an answer
 * within the budget (a result, or one of QLDB's exceptions with a 4xx status), then the engine
 * is the same live process, the fixture table holds the document written before, and a
 * well-formed statement still answers.
 */
import { CreateLedgerCommand, QLDBClient } from '@aws-sdk/client-qldb';
import { QLDBSessionClient, SendCommandCommand } from '@aws-sdk/client-qldb-session';
import { QldbDriver, RetryConfig } from 'amazon-qldb-driver-nodejs';
import fc from 'fast-check';
import { dom, dumpBinary } from 'ion-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';
import {
  ionHash,
  type QldbEngine,
  startQldbEngine,
  statementDigest,
  stringHash,
} from '../../targets/qldb/engine';
import { FUZZ_TABLE, KEEP_TABLE, type QldbStatement, qldbStatement } from './qldb-grammar';
import { alive, assertRuns, type FuzzRuns, Tally, within } from './support/fuzz-runs';

/** The bound for any statement's answer; each input is a few SendCommand calls. */
const BUDGET_MS = 1_000;
const DEADLINE_MS = 3 * BUDGET_MS;
const LEDGER = 'fuzz';
/** Pages a result may take before the input is done with it. */
const MAX_PAGES = 20;
/** What QLDB Session answers with (the API reference's SendCommand errors). */
const QLDB_ERRORS = new Set([
  'BadRequestException',
  'InvalidSessionException',
  'OccConflictException',
  'LimitExceededException',
  'RateExceededException',
  'CapacityExceededException',
]);
const KEEP_DOC = { id: 'keep', n: 1, l: [1, 2], s: { a: 'x' } };

/** The error's name and HTTP status, as the SDK read them off the answer. */
function describeError(err: unknown): { name: string; status?: number; message: string } {
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  return { name: e.name ?? 'Error', status: e.$metadata?.httpStatusCode, message: String(e.message) };
}

/** One session of SendCommand calls; a new one when the engine ends it. */
class RawSession {
  readonly #client: QLDBSessionClient;
  #token: string | undefined;
  constructor(endpoint: string) {
    this.#client = new QLDBSessionClient({
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      endpoint,
      maxAttempts: 1,
    });
  }
  close(): void {
    this.#client.destroy();
  }
  async #send(command: Omit<ConstructorParameters<typeof SendCommandCommand>[0], 'SessionToken'>) {
    if (!this.#token) {
      const started = await this.#client.send(
        new SendCommandCommand({ StartSession: { LedgerName: LEDGER } }),
      );
      this.#token = started.StartSession?.SessionToken;
    }
    try {
      return await this.#client.send(new SendCommandCommand({ SessionToken: this.#token, ...command }));
    } catch (err) {
      if (describeError(err).name === 'InvalidSessionException') this.#token = undefined;
      throw err;
    }
  }
  /** Runs one statement in a transaction of its own and commits it; the values it returned. */
  async run(statement: string, params: readonly unknown[], commit = true): Promise<dom.Value[]> {
    const started = await this.#send({ StartTransaction: {} });
    const TransactionId = started.StartTransaction?.TransactionId ?? '';
    const binary = params.map((p) => dumpBinary(dom.Value.from(p as never)));
    const values: dom.Value[] = [];
    try {
      const executed = await this.#send({
        ExecuteStatement: {
          TransactionId,
          Statement: statement,
          Parameters: binary.map((IonBinary) => ({ IonBinary })),
        },
      });
      let page = executed.ExecuteStatement?.FirstPage;
      for (let n = 0; page && n < MAX_PAGES; n += 1) {
        for (const v of page.Values ?? [])
          values.push(dom.load(v.IonBinary ?? new Uint8Array()) as dom.Value);
        if (!page.NextPageToken) break;
        page = (await this.#send({ FetchPage: { TransactionId, NextPageToken: page.NextPageToken } }))
          .FetchPage?.Page;
      }
    } catch (err) {
      await this.#send({ AbortTransaction: {} }).catch(() => undefined);
      throw err;
    }
    if (!commit) {
      await this.#send({ AbortTransaction: {} });
      return values;
    }
    let digest: Uint8Array;
    try {
      digest = statementDigest(
        stringHash(TransactionId),
        statement,
        binary.map((b) => ionHash(b)),
      );
    } catch {
      // What the driver cannot hash it cannot send; the engine must still refuse a wrong digest.
      digest = new Uint8Array(32);
    }
    await this.#send({ CommitTransaction: { TransactionId, CommitDigest: digest } });
    return values;
  }
}

export function describeQldbFuzz(runs: FuzzRuns, grammar: { maxDepth: number }): void {
  describe(`fuzzing QLDB PartiQL on the local engine (${runs.tier} tier)`, () => {
    let engine: QldbEngine;
    let session: RawSession;
    const tally = new Tally('qldb');
    beforeAll(async () => {
      engine = await startQldbEngine({});
      const control = new QLDBClient({
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
        endpoint: engine.endpoint,
        maxAttempts: 1,
      });
      try {
        await control.send(
          new CreateLedgerCommand({ Name: LEDGER, PermissionsMode: 'STANDARD', DeletionProtection: false }),
        );
      } finally {
        control.destroy();
      }
      // The fixture through the driver, as the lab's functions write.
      const driver = new QldbDriver(
        LEDGER,
        { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: engine.endpoint, maxAttempts: 1 },
        {},
        undefined,
        new RetryConfig(0),
      );
      try {
        for (const t of [KEEP_TABLE, FUZZ_TABLE])
          await driver.executeLambda(async (txn) => {
            await txn.execute(`CREATE TABLE ${t}`);
          });
        await driver.executeLambda(async (txn) => {
          await txn.execute(`INSERT INTO ${KEEP_TABLE} ?`, KEEP_DOC);
          await txn.execute(`INSERT INTO ${FUZZ_TABLE} ?`, { id: 'f', n: 2, l: [3], s: { a: 'y' } });
        });
      } finally {
        driver.close();
      }
      session = new RawSession(engine.endpoint);
    }, 60_000);
    afterAll(async () => {
      console.log(tally.line(runs));
      session?.close();
      await engine?.stop();
    });

    async function stillWhole(pid: number): Promise<void> {
      expect(alive(engine.pid) && engine.pid === pid, 'the engine process').toBe(true);
      const docs = await within(
        DEADLINE_MS,
        'reading the fixture table',
        session.run(`SELECT * FROM ${KEEP_TABLE}`, [], false),
      );
      expect(docs.map((d) => JSON.parse(JSON.stringify(d)))).toEqual([KEEP_DOC]);
    }

    it(
      `answers ${runs.numRuns} generated statements within the budget, as QLDB errs, losing nothing`,
      async () => {
        const pid = engine.pid;
        await assertRuns(
          runs,
          fc.asyncProperty(qldbStatement(grammar.maxDepth), async ({ text, params }: QldbStatement) => {
            const label = `${JSON.stringify(text)} with ${JSON.stringify(params)}`;
            let outcome: string;
            try {
              await within(DEADLINE_MS, label, session.run(text, params));
              outcome = 'ok';
            } catch (err) {
              if (String(err).includes('no answer within')) {
                tally.add('hang');
                throw err;
              }
              const { name, status, message } = describeError(err);
              // No status: no answer came; say whether the engine is still there.
              outcome =
                status === undefined
                  ? `no answer (${alive(engine.pid) ? 'engine alive' : 'engine died'})`
                  : `${status} ${name}`;
              tally.add(outcome);
              expect(QLDB_ERRORS.has(name), `${label} -> ${name}: ${message}; ${outcome}`).toBe(true);
              expect(status, `${label} -> ${name}: ${message}`).toBe(400);
              await stillWhole(pid);
              return;
            }
            tally.add(outcome);
            await stillWhole(pid);
          }),
        );
      },
      runs.numRuns * 2 * DEADLINE_MS + 30_000,
    );
  });
}
