/**
 * The QLDB Session API (SendCommand) over ledgers: sessions and their expiry, one transaction
 * per session, Ion parameters and results, paging, the commit digest, OCC at commit and the
 * journal. Both the HTTP endpoint and the test mock (aws-sdk-client-mock) call `send`, so the
 * tests and the local lab run one implementation.
 *
 * Lifetimes as QLDB documents them: a session expires 13-17 minutes after it started (15 here)
 * and after 60 s idle outside a transaction; a transaction must commit within 30 s, after which
 * the session is discarded ("Transaction <id> has expired", which the driver does not retry).
 * https://docs.aws.amazon.com/qldb/latest/developerguide/driver-errors.html
 * An expired session keeps answering InvalidSessionException with the reason it expired (the
 * sweep that drops abandoned sessions marks them; it must not turn "Transaction <id> has expired"
 * into "No such session"), and is forgotten later; a token never issued or forgotten answers
 * "No such session", as QLDB does for a session it no longer knows.
 */
import { randomBytes } from 'node:crypto';
import type { Page, SendCommandRequest, SendCommandResult, ValueHolder } from '@aws-sdk/client-qldb-session';
import { dom, dumpBinary } from 'ion-js';
import { QldbControlPlane, type QldbControlPlaneOptions } from './control-plane';
import { ionHash, statementDigest, stringHash } from './digest';
import { committing, QldbError } from './errors';
import type { Journal } from './journal';
import type { CommitRecord, Ledger, Transaction } from './ledger';
import { QLDB_QUOTAS, randomId } from './ledger';
import { type ParsedStatement, parseStatement } from './partiql';

export const COMMAND_KINDS = [
  'StartSession',
  'StartTransaction',
  'ExecuteStatement',
  'FetchPage',
  'CommitTransaction',
  'AbortTransaction',
  'EndSession',
] as const;
export type CommandKind = (typeof COMMAND_KINDS)[number];

export const QLDB_DEFAULTS = {
  pageSize: 200,
  sessionIdleMs: 60_000,
  sessionLifetimeMs: 15 * 60_000,
  transactionTimeoutMs: 30_000,
} as const;

export interface StatementEvent {
  readonly transactionId: string;
  readonly statement: string;
  readonly parameters: readonly dom.Value[];
  /** Set when the statement was refused. */
  readonly error?: Error;
}

/** Hooks for tests that want to see what ran; the endpoint runs without them. */
export interface SessionObserver {
  statement?(event: StatementEvent): void;
  committed?(transactionId: string): void;
}

export interface QldbServiceOptions extends QldbControlPlaneOptions {
  /** Values per page before a NextPageToken. @default 200 */
  readonly pageSize?: number;
  /** @default 60 000 */
  readonly sessionIdleMs?: number;
  /** @default 900 000 (QLDB: 13-17 minutes) */
  readonly sessionLifetimeMs?: number;
  /** @default 30 000 */
  readonly transactionTimeoutMs?: number;
  /** How long one statement may evaluate before it is refused (the engine serves all clients from one thread). @default 1 000 */
  readonly statementBudgetMs?: number;
  /** Persist commits here; absent keeps everything in memory. */
  readonly journal?: Journal;
  readonly observer?: SessionObserver;
}

interface Session {
  readonly token: string;
  /** Why the session expired, once it has: every later command is answered with it. */
  expired?: { readonly reason: string; readonly at: number };
  readonly ledger: Ledger;
  readonly createdAt: number;
  lastUsed: number;
  transaction?: Transaction;
  /** Remaining result values by NextPageToken. */
  readonly pages: Map<string, { readonly transactionId: string; readonly values: readonly dom.Value[] }>;
}

const PARSE_CACHE_SIZE = 256;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const SWEEP_EVERY_MS = 1_000;
/** How long an expired session still answers with its reason before it is forgotten. */
const FORGET_EXPIRED_AFTER_MS = 15 * 60_000;

export function commandKind(input: SendCommandRequest): CommandKind {
  const kinds = COMMAND_KINDS.filter((k) => input[k] !== undefined && input[k] !== null);
  if (kinds.length !== 1) {
    throw QldbError.badRequest(`Exactly one command per request, got ${kinds.join(', ') || 'none'}`);
  }
  return kinds[0];
}

function parameter(holder: ValueHolder): { value: dom.Value; hash: Uint8Array } {
  // IonBinary may hold binary or text Ion: the reader tells them apart by the version marker.
  const raw = holder.IonBinary ?? holder.IonText;
  if (raw === undefined) throw QldbError.badRequest('A parameter must have IonBinary or IonText');
  // Quotas: a parameter is at most 128 KB as Ion binary and 1 MB as Ion text.
  const limit =
    holder.IonBinary !== undefined ? QLDB_QUOTAS.parameterBinaryBytes : QLDB_QUOTAS.parameterTextBytes;
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > limit) {
    throw QldbError.badRequest(`A statement parameter is ${size} bytes, over the limit of ${limit} bytes`);
  }
  let value: dom.Value | null;
  try {
    value = dom.load(raw);
  } catch (err) {
    throw QldbError.badRequest(`A parameter is not valid Ion: ${(err as Error).message}`);
  }
  if (value === null) throw QldbError.badRequest('A parameter must hold exactly one Ion value');
  try {
    return { value, hash: ionHash(raw) };
  } catch (err) {
    throw QldbError.badRequest(`A parameter cannot be hashed as Ion: ${(err as Error).message}`);
  }
}

export class QldbSessionService {
  /** The ledgers this service's sessions run on, and QLDB's control plane over them. */
  readonly control: QldbControlPlane;
  readonly #sessions = new Map<string, Session>();
  readonly #parsed = new Map<string, ParsedStatement>();
  readonly #pageSize: number;
  readonly #idleMs: number;
  readonly #lifetimeMs: number;
  readonly #transactionMs: number;
  readonly #budgetMs: number | undefined;
  readonly #journal: Journal | undefined;
  readonly #observer: SessionObserver;
  readonly #now: () => number;
  #lastSweep = 0;

  /** `records` are the journal's commits, replayed before the first command. */
  constructor(options: QldbServiceOptions = {}, records: readonly CommitRecord[] = []) {
    this.#now = options.now ?? Date.now;
    this.#pageSize = options.pageSize ?? QLDB_DEFAULTS.pageSize;
    this.#idleMs = options.sessionIdleMs ?? QLDB_DEFAULTS.sessionIdleMs;
    this.#lifetimeMs = options.sessionLifetimeMs ?? QLDB_DEFAULTS.sessionLifetimeMs;
    this.#transactionMs = options.transactionTimeoutMs ?? QLDB_DEFAULTS.transactionTimeoutMs;
    this.#budgetMs = options.statementBudgetMs;
    this.#journal = options.journal;
    this.#observer = options.observer ?? {};
    if (!(Number.isInteger(this.#pageSize) && this.#pageSize > 0)) {
      throw new Error(`pageSize must be a positive integer, got ${this.#pageSize}`);
    }
    this.control = new QldbControlPlane(options, records, (ledger, reason, now) => {
      for (const session of this.#sessions.values()) {
        if (session.ledger === ledger && !session.expired) this.#expire(session, reason, now);
      }
    });
  }

  /** The ledger of that name, when it exists and is ACTIVE. */
  ledger(name: string): Ledger | undefined {
    return this.control.ledger(name);
  }

  /** Sessions started and not ended or expired. */
  get openSessions(): number {
    let n = 0;
    for (const session of this.#sessions.values()) if (!session.expired) n += 1;
    return n;
  }

  async send(input: SendCommandRequest): Promise<SendCommandResult> {
    const kind = commandKind(input);
    const started = performance.now();
    const timing = () => ({
      ProcessingTimeMilliseconds: Math.max(0, Math.round(performance.now() - started)),
    });
    const now = this.#now();
    this.#sweep(now);

    if (kind === 'StartSession') {
      const name = input.StartSession?.LedgerName ?? '';
      const ledger = this.ledger(name);
      // QLDB answers StartSession on a ledger that does not exist with BadRequestException (the
      // Node driver's integration test "Throws exception when connecting to a non-existent
      // ledger" asserts the code); the message's text is not documented, this one is ours.
      if (!ledger) {
        const state = this.control.stateOf(name);
        throw QldbError.badRequest(
          state ? `Ledger ${name} is ${state}, not ACTIVE` : `Ledger ${name} does not exist`,
        );
      }
      if (this.openSessions >= QLDB_QUOTAS.concurrentSessions) {
        throw new QldbError(
          'LimitExceededException',
          `Exceeded the limit of ${QLDB_QUOTAS.concurrentSessions} concurrent active sessions on ledger ${name}`,
        );
      }
      const token = randomBytes(32).toString('base64url');
      this.#sessions.set(token, { token, ledger, createdAt: now, lastUsed: now, pages: new Map() });
      return { StartSession: { SessionToken: token, TimingInformation: timing() } };
    }

    const session = this.#session(input.SessionToken ?? '', now);
    switch (kind) {
      case 'StartTransaction': {
        if (session.transaction) throw QldbError.badRequest('Transaction already open');
        const id = randomId();
        session.transaction = session.ledger.begin(id, now, stringHash(id));
        return { StartTransaction: { TransactionId: id, TimingInformation: timing() } };
      }
      case 'ExecuteStatement': {
        const request = input.ExecuteStatement;
        const txn = this.#transaction(session, request?.TransactionId);
        const statement = request?.Statement ?? '';
        let params: { value: dom.Value; hash: Uint8Array }[] = [];
        let values: dom.Value[];
        try {
          // Refused before it is hashed: hashing a statement far over the quota would hold the
          // engine's one thread for as long as a statement's budget.
          if (statement.length > QLDB_QUOTAS.statementLength) {
            throw QldbError.badRequest(
              `The statement is ${statement.length} characters long, over the limit of ${QLDB_QUOTAS.statementLength}`,
            );
          }
          params = (request?.Parameters ?? []).map(parameter);
          // Ion strings are Unicode: a lone surrogate cannot be hashed (nor sent by a driver, which
          // hashes each statement before sending it).
          const surrogate = LONE_SURROGATE.exec(statement);
          if (surrogate) {
            throw QldbError.badRequest(
              `The statement is not valid Unicode: a lone surrogate at character ${surrogate.index + 1}`,
            );
          }
          // The digest covers every statement received, as the driver's does.
          txn.digest = statementDigest(
            txn.digest,
            statement,
            params.map((p) => p.hash),
          );
          values = session.ledger.execute(
            txn,
            this.#parse(statement),
            params.map((p) => p.value),
            now,
            this.#budgetMs,
          );
        } catch (err) {
          this.#observer.statement?.({
            transactionId: txn.id,
            statement,
            parameters: params.map((p) => p.value),
            error: err as Error,
          });
          throw err;
        }
        this.#observer.statement?.({
          transactionId: txn.id,
          statement,
          parameters: params.map((p) => p.value),
        });
        return {
          ExecuteStatement: {
            FirstPage: this.#page(session, txn.id, values),
            ConsumedIOs: { ReadIOs: txn.lastReadIOs, WriteIOs: 0 },
            TimingInformation: timing(),
          },
        };
      }
      case 'FetchPage': {
        const request = input.FetchPage;
        const txn = this.#transaction(session, request?.TransactionId);
        const token = request?.NextPageToken ?? '';
        const rest = session.pages.get(token);
        if (!rest || rest.transactionId !== txn.id) throw QldbError.badRequest('Invalid NextPageToken');
        session.pages.delete(token);
        return {
          FetchPage: {
            Page: this.#page(session, txn.id, rest.values),
            // The statement's reads were counted on its first page (the driver sums the pages'
            // ConsumedIOs; its "Can return metrics for executes" test expects the statement's total).
            ConsumedIOs: { ReadIOs: 0, WriteIOs: 0 },
            TimingInformation: timing(),
          },
        };
      }
      case 'CommitTransaction': {
        const request = input.CommitTransaction;
        const txn = this.#transaction(session, request?.TransactionId);
        const sent = request?.CommitDigest ?? new Uint8Array();
        if (Buffer.compare(Buffer.from(sent), Buffer.from(txn.digest)) !== 0) {
          throw QldbError.badRequest(
            `Transaction ${txn.id}: the commit digest does not match the statements and parameters received`,
          );
        }
        // OCC or not, the transaction is over.
        session.transaction = undefined;
        session.pages.clear();
        const writes = txn.writeCount;
        // A failure from here on may leave memory ahead of the journal: a CommitFailure.
        const record = await committing(() => session.ledger.commit(txn, now));
        // Acknowledge only what is on disk; a read-only commit waits for what it may have read.
        const journal = this.#journal;
        if (journal) await committing(() => (record ? journal.append(record) : journal.barrier()));
        this.#observer.committed?.(txn.id);
        return {
          CommitTransaction: {
            TransactionId: txn.id,
            CommitDigest: txn.digest,
            ConsumedIOs: { ReadIOs: 0, WriteIOs: writes },
            TimingInformation: timing(),
          },
        };
      }
      case 'AbortTransaction':
        session.transaction = undefined;
        session.pages.clear();
        return { AbortTransaction: { TimingInformation: timing() } };
      case 'EndSession':
        this.#sessions.delete(session.token);
        return { EndSession: { TimingInformation: timing() } };
    }
  }

  #session(token: string, now: number): Session {
    const session = this.#sessions.get(token);
    if (!session) throw QldbError.invalidSession('No such session');
    if (!session.expired) {
      const reason = this.#expiry(session, now);
      if (reason) this.#expire(session, reason, now);
    }
    if (session.expired) throw QldbError.invalidSession(session.expired.reason);
    session.lastUsed = now;
    return session;
  }

  /** Discards what the session held (its transaction is never committed) and keeps the reason. */
  #expire(session: Session, reason: string, now: number): void {
    session.expired = { reason, at: now };
    session.transaction = undefined;
    session.pages.clear();
  }

  /** Why the session is no longer valid, or undefined. */
  #expiry(session: Session, now: number): string | undefined {
    const txn = session.transaction;
    if (txn && now - txn.startedAt > this.#transactionMs) return `Transaction ${txn.id} has expired`;
    if (now - session.createdAt > this.#lifetimeMs) return `Session ${session.token} has expired`;
    if (!txn && now - session.lastUsed > this.#idleMs) {
      return `Exceeded the session idle time limit: Session ${session.token}`;
    }
    return undefined;
  }

  /**
   * Now and then marks abandoned sessions expired (freeing what they held) and forgets sessions
   * expired long ago, so neither accumulates.
   */
  #sweep(now: number): void {
    if (now - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now;
    for (const [token, session] of this.#sessions) {
      if (session.expired) {
        if (now - session.expired.at > FORGET_EXPIRED_AFTER_MS) this.#sessions.delete(token);
        continue;
      }
      const reason = this.#expiry(session, now);
      if (reason) this.#expire(session, reason, now);
    }
  }

  #transaction(session: Session, id: string | undefined): Transaction {
    const txn = session.transaction;
    if (!txn) throw QldbError.badRequest('No open transaction');
    if (txn.id !== id) throw QldbError.badRequest(`Transaction ${id} is not the open transaction`);
    return txn;
  }

  #parse(statement: string): ParsedStatement {
    let parsed = this.#parsed.get(statement);
    if (!parsed) {
      parsed = parseStatement(statement);
      if (this.#parsed.size >= PARSE_CACHE_SIZE) this.#parsed.clear();
      this.#parsed.set(statement, parsed);
    }
    return parsed;
  }

  #page(session: Session, transactionId: string, values: readonly dom.Value[]): Page {
    const page: Page = {
      Values: values.slice(0, this.#pageSize).map((v) => ({ IonBinary: dumpBinary(v) })),
    };
    if (values.length > this.#pageSize) {
      const next = randomId();
      session.pages.set(next, { transactionId, values: values.slice(this.#pageSize) });
      page.NextPageToken = next;
    }
    return page;
  }
}
