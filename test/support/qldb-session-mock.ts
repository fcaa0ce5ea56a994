/**
 * The local QLDB engine's ledger (targets/qldb/engine) behind `mockClient(QLDBSessionClient)`, so
 * the real amazon-qldb-driver-nodejs runs end to end in-process: sessions, transactions, Ion
 * binary parameters and results, paging, OCC and the commit digest the driver checks. The HTTP
 * endpoint the local lab runs is the same implementation; this adds recording and fault injection.
 *
 * Statements are parsed and run by the engine's PartiQL (QLDB's, as its developer guide documents
 * it); what QLDB refused is refused with a BadRequestException, so a bad statement fails the tests.
 */
import {
  BadRequestException,
  CapacityExceededException,
  InvalidSessionException,
  LimitExceededException,
  OccConflictException,
  QLDBSessionClient,
  type QLDBSessionClientConfig,
  type QLDBSessionServiceException,
  RateExceededException,
  SendCommandCommand,
  type SendCommandCommandInput,
  type SendCommandCommandOutput,
} from '@aws-sdk/client-qldb-session';
import { mockClient } from 'aws-sdk-client-mock';
import type { dom } from 'ion-js';
import { QldbError, type QldbErrorCode } from '../../targets/qldb/engine/errors';
import type { Ledger } from '../../targets/qldb/engine/ledger';
import { type CommandKind, commandKind, QldbSessionService } from '../../targets/qldb/engine/session-service';

export type { CommandKind } from '../../targets/qldb/engine/session-service';

export interface ExecutedStatement {
  readonly transactionId: string;
  readonly statement: string;
  /** The parameters as decoded from Ion, as plain JSON. */
  readonly parameters: readonly unknown[];
  /** The exception name when QLDB refused the statement. */
  readonly error?: string;
  /** Set when the statement's transaction committed. */
  committed: boolean;
}

export interface FaultOptions {
  /** Only commands of this kind fail; by default any command does. */
  readonly command?: CommandKind;
  /** Thrown instead of the default connection error. */
  readonly error?: Error;
  /** Never answer (the request hangs) instead of throwing. */
  readonly hang?: boolean;
  /** Answer normally, but this late (a slow service, not a failure). */
  readonly delayMs?: number;
}

export interface FakeLedgerOptions {
  readonly ledgerName?: string;
  /** Values per page before a NextPageToken is returned (QLDB pages results too). */
  readonly pageSize?: number;
  /** Tables that exist before the test, each with its indexed attributes. */
  readonly tables?: Record<string, readonly string[]>;
}

interface Fault extends FaultOptions {
  remaining: number;
}

const SDK_EXCEPTIONS: Record<
  QldbErrorCode,
  new (opts: {
    message: string;
    Message: string;
    $metadata: { httpStatusCode: number };
  }) => QLDBSessionServiceException
> = {
  BadRequestException,
  InvalidSessionException,
  OccConflictException,
  LimitExceededException,
  RateExceededException,
  CapacityExceededException,
};

/** What the SDK client throws for this engine error, as it would deserialize it from the wire. */
function sdkException(err: QldbError): QLDBSessionServiceException {
  return new SDK_EXCEPTIONS[err.code]({
    message: err.message,
    Message: err.message,
    $metadata: { httpStatusCode: 400 },
  });
}

function toPlain(value: dom.Value): unknown {
  return JSON.parse(JSON.stringify(value));
}

export function connectionError(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
}

export class FakeQldbLedger {
  readonly ledgerName: string;
  /** Every ExecuteStatement received, in order, including refused ones. */
  readonly statements: ExecutedStatement[] = [];
  /** Every SendCommand received, by kind, in order, including failed ones. */
  readonly commands: CommandKind[] = [];
  /** StartSession calls answered: the mock's stand-in for new connections. */
  sessionsStarted = 0;

  readonly #stub = mockClient(QLDBSessionClient);
  readonly #service: QldbSessionService;
  readonly #ledger: Ledger;
  readonly #faults: Fault[] = [];

  constructor(options: FakeLedgerOptions = {}) {
    this.ledgerName = options.ledgerName ?? 'lab';
    this.#service = new QldbSessionService({
      ledgers: [this.ledgerName],
      pageSize: options.pageSize,
      observer: {
        statement: (e) => {
          this.statements.push({
            transactionId: e.transactionId,
            statement: e.statement,
            parameters: e.parameters.map(toPlain),
            committed: false,
            ...(e.error ? { error: e.error.name } : {}),
          });
        },
        committed: (transactionId) => {
          for (const s of this.statements) if (s.transactionId === transactionId) s.committed = true;
        },
      },
    });
    const ledger = this.#service.ledger(this.ledgerName);
    if (!ledger) throw new Error(`ledger ${this.ledgerName} missing`);
    this.#ledger = ledger;
    for (const [name, attributes] of Object.entries(options.tables ?? {}))
      ledger.defineTable(name, attributes);
    this.#stub.on(SendCommandCommand).callsFake((input: SendCommandCommandInput) => this.#send(input));
  }

  /** OCC conflicts answered at commit. */
  get occConflicts(): number {
    return this.#ledger.occConflicts;
  }

  /** Makes the next `count` commands (of one kind, if given) fail or hang. */
  failNext(count: number, options: FaultOptions = {}): void {
    this.#faults.push({ ...options, remaining: count });
  }

  /** Committed documents of a table, as plain JSON. */
  documents(table: string): Record<string, unknown>[] {
    return this.#ledger.documents(table).map((d) => toPlain(d) as Record<string, unknown>);
  }

  tableNames(): string[] {
    return this.#ledger.tableNames();
  }

  tableId(table: string): string | undefined {
    return this.#ledger.tableId(table);
  }

  indexedAttributes(table: string): string[] {
    return this.#ledger.indexedFields(table);
  }

  /** Undoes mockClient: later QLDBSessionClient instances talk to the real service again. */
  restore(): void {
    this.#stub.restore();
  }

  async #send(input: SendCommandCommandInput): Promise<SendCommandCommandOutput> {
    let kind: CommandKind;
    try {
      kind = commandKind(input);
    } catch (err) {
      throw err instanceof QldbError ? sdkException(err) : err;
    }
    this.commands.push(kind);
    const fault = this.#faults.find(
      (f) => f.remaining > 0 && (f.command === undefined || f.command === kind),
    );
    if (fault) {
      fault.remaining -= 1;
      if (fault.hang) return new Promise<never>(() => {});
      if (fault.delayMs !== undefined) await new Promise((r) => setTimeout(r, fault.delayMs));
      else throw fault.error ?? connectionError();
    }
    // Answer asynchronously, as a network call would, so concurrent callers interleave.
    await Promise.resolve();
    try {
      const output = await this.#service.send(input);
      if (kind === 'StartSession') this.sessionsStarted += 1;
      return { ...output, $metadata: { httpStatusCode: 200 } };
    } catch (err) {
      throw err instanceof QldbError ? sdkException(err) : err;
    }
  }
}

/** Mocks QLDBSessionClient (every instance, including the driver's) with a fresh ledger. */
export function mockQldbLedger(options: FakeLedgerOptions = {}): FakeQldbLedger {
  return new FakeQldbLedger(options);
}

/** Client settings for tests: a region and static credentials so the SDK never looks further. */
export const TEST_CLIENT_CONFIG: QLDBSessionClientConfig = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};
