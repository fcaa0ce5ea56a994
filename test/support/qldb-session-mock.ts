/**
 * An in-memory QLDB ledger behind `mockClient(QLDBSessionClient)`, so the real
 * amazon-qldb-driver-nodejs runs end to end against it: sessions, transactions, Ion
 * binary parameters and results, paging, OCC and the commit digest the driver checks.
 *
 * Only the statements the lab issues are understood; anything else is refused with a
 * BadRequestException, so a changed statement fails the tests instead of passing silently.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  BadRequestException,
  InvalidSessionException,
  OccConflictException,
  type Page,
  QLDBSessionClient,
  type QLDBSessionClientConfig,
  SendCommandCommand,
  type SendCommandCommandInput,
  type SendCommandCommandOutput,
  type ValueHolder,
} from '@aws-sdk/client-qldb-session';
import { mockClient } from 'aws-sdk-client-mock';
import { cryptoHasherProvider, makeHashReader } from 'ion-hash-js';
import { dom, dumpBinary, dumpText, IonTypes, makeReader, makeTextWriter } from 'ion-js';

export type CommandKind =
  | 'StartSession'
  | 'StartTransaction'
  | 'ExecuteStatement'
  | 'FetchPage'
  | 'CommitTransaction'
  | 'AbortTransaction'
  | 'EndSession';

const COMMAND_KINDS: readonly CommandKind[] = [
  'StartSession',
  'StartTransaction',
  'ExecuteStatement',
  'FetchPage',
  'CommitTransaction',
  'AbortTransaction',
  'EndSession',
];

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
}

export interface FakeLedgerOptions {
  readonly ledgerName?: string;
  /** Values per page before a NextPageToken is returned (QLDB pages results too). */
  readonly pageSize?: number;
  /** Tables that exist before the test, each with its indexed attributes. */
  readonly tables?: Record<string, readonly string[]>;
}

interface TableState {
  readonly name: string;
  readonly tableId: string;
  readonly documents: dom.Value[];
  readonly indexes: { readonly attribute: string; readonly indexId: string }[];
}

interface TransactionState {
  readonly id: string;
  digest: Uint8Array;
  /** OCC read set: key -> version seen when read. */
  readonly reads: Map<string, number>;
  readonly newTables: Map<string, TableState>;
  readonly newIndexes: { readonly table: string; readonly attribute: string; readonly indexId: string }[];
  readonly inserts: { readonly table: string; readonly document: dom.Value }[];
  readonly statements: ExecutedStatement[];
}

interface SessionState {
  transaction?: TransactionState;
  /** Remaining result pages by NextPageToken. */
  readonly pages: Map<string, { readonly transactionId: string; readonly values: readonly dom.Value[] }>;
}

interface Fault extends FaultOptions {
  remaining: number;
}

type SendCommandOutput = Omit<SendCommandCommandOutput, '$metadata'>;
/** A result value before it is encoded as Ion. */
type Row = dom.Value | Record<string, unknown>;
type Projection = readonly string[] | '*';
type StatementRunner = (
  txn: TransactionState,
  match: RegExpMatchArray,
  params: readonly dom.Value[],
) => Row[];

const HASH_SIZE = 32;
const SCHEMA_KEY = 'information_schema.user_tables';
const IDENT = '[A-Za-z_][A-Za-z0-9_]*';

// --- The QLDB commit digest, computed independently of the driver from what was received. ---

function ionHash(value: Uint8Array | string): Uint8Array {
  const reader = makeHashReader(makeReader(value), cryptoHasherProvider('sha256'));
  reader.next();
  reader.next();
  return reader.digest();
}

function stringHash(text: string): Uint8Array {
  const writer = makeTextWriter();
  writer.writeString(text);
  writer.close();
  return ionHash(writer.getBytes());
}

/** QLDB orders two hashes by their signed bytes, last byte first. */
function compareHashes(a: Uint8Array, b: Uint8Array): number {
  for (let i = HASH_SIZE - 1; i >= 0; i--) {
    const diff = ((a[i] << 24) >> 24) - ((b[i] << 24) >> 24);
    if (diff !== 0) return diff;
  }
  return 0;
}

function dot(a: Uint8Array, b: Uint8Array): Uint8Array {
  const [first, second] = compareHashes(a, b) < 0 ? [a, b] : [b, a];
  return new Uint8Array(createHash('sha256').update(first).update(second).digest());
}

// --- Helpers ---

function randomId(): string {
  // QLDB ids are 22 base62 characters.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(22), (b) => alphabet[b % alphabet.length]).join('');
}

function badRequest(message: string): BadRequestException {
  return new BadRequestException({ message, Message: message, $metadata: { httpStatusCode: 400 } });
}

function invalidSession(message: string): InvalidSessionException {
  return new InvalidSessionException({ message, Message: message, $metadata: { httpStatusCode: 400 } });
}

export function connectionError(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
}

function commandKind(input: SendCommandCommandInput): CommandKind {
  const kinds = COMMAND_KINDS.filter((k) => input[k] !== undefined);
  if (kinds.length !== 1)
    throw badRequest(`exactly one command per request, got ${kinds.join(', ') || 'none'}`);
  return kinds[0];
}

function parameterValue(holder: ValueHolder): { value: dom.Value; hash: Uint8Array } {
  // IonBinary may hold binary or text Ion: the reader tells them apart by the version marker.
  const raw = holder.IonBinary ?? holder.IonText;
  if (raw === undefined) throw badRequest('a parameter must have IonBinary or IonText');
  const value = dom.load(raw);
  if (value === null) throw badRequest('a parameter must hold exactly one Ion value');
  return { value, hash: ionHash(raw) };
}

function toPlain(value: dom.Value): unknown {
  return JSON.parse(JSON.stringify(value));
}

function keyOf(table: string, attribute: string, value: dom.Value): string {
  return `${table}.${attribute}=${dumpText(value)}`;
}

function toIon(value: Row): dom.Value {
  const loaded = dom.load(dumpBinary(value));
  if (loaded === null) throw new Error('no Ion value');
  return loaded;
}

function project(doc: dom.Value, fields: Projection): Row {
  if (fields === '*') return doc;
  const out: Record<string, dom.Value> = {};
  for (const f of fields) {
    const v = doc.get(f);
    if (v !== null) out[f] = v;
  }
  return out;
}

function parseFields(list: string): Projection {
  if (list.trim() === '*') return '*';
  const fields = list.split(',').map((f) => f.trim());
  if (fields.some((f) => !new RegExp(`^${IDENT}$`).test(f)))
    throw badRequest(`Syntax error in projection ${list}`);
  return fields;
}

export class FakeQldbLedger {
  readonly ledgerName: string;
  /** Every ExecuteStatement received, in order, including refused ones. */
  readonly statements: ExecutedStatement[] = [];
  /** Every SendCommand received, by kind, in order, including failed ones. */
  readonly commands: CommandKind[] = [];
  /** StartSession calls answered: the mock's stand-in for new connections. */
  sessionsStarted = 0;
  occConflicts = 0;

  readonly #stub = mockClient(QLDBSessionClient);
  readonly #pageSize: number;
  readonly #tables = new Map<string, TableState>();
  readonly #versions = new Map<string, number>();
  readonly #sessions = new Map<string, SessionState>();
  readonly #faults: Fault[] = [];
  #commitSequence = 0;

  constructor(options: FakeLedgerOptions = {}) {
    this.ledgerName = options.ledgerName ?? 'lab';
    this.#pageSize = options.pageSize ?? 200;
    for (const [name, attributes] of Object.entries(options.tables ?? {})) {
      this.#tables.set(name, {
        name,
        tableId: randomId(),
        documents: [],
        indexes: attributes.map((attribute) => ({ attribute, indexId: randomId() })),
      });
    }
    this.#stub.on(SendCommandCommand).callsFake((input: SendCommandCommandInput) => this.#send(input));
  }

  /** Makes the next `count` commands (of one kind, if given) fail or hang. */
  failNext(count: number, options: FaultOptions = {}): void {
    this.#faults.push({ ...options, remaining: count });
  }

  /** Committed documents of a table, as plain JSON. */
  documents(table: string): Record<string, unknown>[] {
    return (this.#tables.get(table)?.documents ?? []).map((d) => toPlain(d) as Record<string, unknown>);
  }

  tableNames(): string[] {
    return [...this.#tables.keys()];
  }

  tableId(table: string): string | undefined {
    return this.#tables.get(table)?.tableId;
  }

  indexedAttributes(table: string): string[] {
    return (this.#tables.get(table)?.indexes ?? []).map((i) => i.attribute);
  }

  /** Undoes mockClient: later QLDBSessionClient instances talk to the real service again. */
  restore(): void {
    this.#stub.restore();
  }

  async #send(input: SendCommandCommandInput): Promise<SendCommandCommandOutput> {
    const kind = commandKind(input);
    this.commands.push(kind);
    const fault = this.#faults.find(
      (f) => f.remaining > 0 && (f.command === undefined || f.command === kind),
    );
    if (fault) {
      fault.remaining -= 1;
      if (fault.hang) return new Promise<never>(() => {});
      throw fault.error ?? connectionError();
    }
    // Answer asynchronously, as a network call would, so concurrent callers interleave.
    await Promise.resolve();
    return { ...this.#answer(kind, input), $metadata: { httpStatusCode: 200 } };
  }

  #answer(kind: CommandKind, input: SendCommandCommandInput): SendCommandOutput {
    const timing = { ProcessingTimeMilliseconds: 1 };
    if (kind === 'StartSession') {
      if (input.StartSession?.LedgerName !== this.ledgerName) {
        throw badRequest(`Ledger ${input.StartSession?.LedgerName} does not exist`);
      }
      const token = randomId();
      this.#sessions.set(token, { pages: new Map() });
      this.sessionsStarted += 1;
      return { StartSession: { SessionToken: token, TimingInformation: timing } };
    }
    const token = input.SessionToken ?? '';
    const session = this.#sessions.get(token);
    if (!session) throw invalidSession(`Session ${token} is not valid`);

    switch (kind) {
      case 'StartTransaction': {
        if (session.transaction) throw badRequest('Transaction already open');
        const id = randomId();
        session.transaction = {
          id,
          digest: stringHash(id),
          reads: new Map(),
          newTables: new Map(),
          newIndexes: [],
          inserts: [],
          statements: [],
        };
        return { StartTransaction: { TransactionId: id, TimingInformation: timing } };
      }
      case 'ExecuteStatement': {
        const request = input.ExecuteStatement;
        const txn = this.#openTransaction(session, request?.TransactionId);
        const statement = request?.Statement ?? '';
        const params = (request?.Parameters ?? []).map(parameterValue);
        // The digest covers every statement sent, as the driver's does.
        txn.digest = dot(
          txn.digest,
          params.reduce((h, p) => dot(h, p.hash), stringHash(statement)),
        );
        let values: readonly dom.Value[];
        try {
          values = this.#execute(
            txn,
            statement,
            params.map((p) => p.value),
          ).map(toIon);
        } catch (e) {
          this.#record(txn, statement, params, (e as Error).name);
          throw e;
        }
        this.#record(txn, statement, params);
        return {
          ExecuteStatement: {
            FirstPage: this.#page(session, txn.id, values),
            ConsumedIOs: { ReadIOs: values.length, WriteIOs: 0 },
            TimingInformation: timing,
          },
        };
      }
      case 'FetchPage': {
        const request = input.FetchPage;
        const txn = this.#openTransaction(session, request?.TransactionId);
        const rest = session.pages.get(request?.NextPageToken ?? '');
        if (!rest || rest.transactionId !== txn.id) throw badRequest('Invalid NextPageToken');
        session.pages.delete(request?.NextPageToken ?? '');
        return {
          FetchPage: {
            Page: this.#page(session, txn.id, rest.values),
            ConsumedIOs: { ReadIOs: 0, WriteIOs: 0 },
            TimingInformation: timing,
          },
        };
      }
      case 'CommitTransaction': {
        const request = input.CommitTransaction;
        const txn = this.#openTransaction(session, request?.TransactionId);
        const sent = request?.CommitDigest ?? new Uint8Array();
        if (Buffer.compare(Buffer.from(sent), Buffer.from(txn.digest)) !== 0) {
          throw badRequest(`Transaction ${txn.id}: commit digest does not match the statements received`);
        }
        session.transaction = undefined;
        session.pages.clear();
        this.#commit(txn);
        return {
          CommitTransaction: {
            TransactionId: txn.id,
            CommitDigest: txn.digest,
            ConsumedIOs: { ReadIOs: 0, WriteIOs: txn.inserts.length },
            TimingInformation: timing,
          },
        };
      }
      case 'AbortTransaction':
        session.transaction = undefined;
        session.pages.clear();
        return { AbortTransaction: { TimingInformation: timing } };
      case 'EndSession':
        this.#sessions.delete(token);
        return { EndSession: { TimingInformation: timing } };
      default:
        throw badRequest(`unexpected command ${kind}`);
    }
  }

  #openTransaction(session: SessionState, id: string | undefined): TransactionState {
    const txn = session.transaction;
    if (!txn) throw badRequest('No open transaction');
    if (txn.id !== id) throw badRequest(`Transaction ${id} is not the open transaction`);
    return txn;
  }

  #record(
    txn: TransactionState,
    statement: string,
    params: readonly { value: dom.Value }[],
    error?: string,
  ): void {
    const entry: ExecutedStatement = {
      transactionId: txn.id,
      statement,
      parameters: params.map((p) => toPlain(p.value)),
      committed: false,
      ...(error ? { error } : {}),
    };
    this.statements.push(entry);
    txn.statements.push(entry);
  }

  #page(session: SessionState, transactionId: string, values: readonly dom.Value[]): Page {
    const page: Page = { Values: values.slice(0, this.#pageSize).map((v) => ({ IonBinary: dumpBinary(v) })) };
    if (values.length > this.#pageSize) {
      const next = randomId();
      session.pages.set(next, { transactionId, values: values.slice(this.#pageSize) });
      page.NextPageToken = next;
    }
    return page;
  }

  /** What the transaction sees: committed state plus its own uncommitted writes. */
  #table(txn: TransactionState, name: string): TableState | undefined {
    return this.#tables.get(name) ?? txn.newTables.get(name);
  }

  #requireTable(txn: TransactionState, name: string): TableState {
    const table = this.#table(txn, name);
    if (!table) throw badRequest(`Semantic Error: at line 1, column 1: No such variable named '${name}'`);
    return table;
  }

  #read(txn: TransactionState, key: string): void {
    if (!txn.reads.has(key)) txn.reads.set(key, this.#versions.get(key) ?? 0);
  }

  /** The statements the lab issues, each with what QLDB does for it. */
  readonly #grammar: readonly (readonly [RegExp, StatementRunner])[] = [
    [new RegExp(`^CREATE TABLE (${IDENT})$`, 'i'), (txn, [, name]) => this.#createTable(txn, name)],
    [
      new RegExp(`^CREATE INDEX ON (${IDENT}) \\((${IDENT})\\)$`, 'i'),
      (txn, [, name, attribute]) => this.#createIndex(txn, name, attribute),
    ],
    [
      /^SELECT (.+?) FROM information_schema\.user_tables WHERE status = 'ACTIVE'$/i,
      (txn, [, fields]) => this.#userTables(txn, parseFields(fields)),
    ],
    [
      new RegExp(`^SELECT (.+?) FROM (${IDENT}) WHERE (${IDENT}) = \\?$`, 'i'),
      (txn, [, fields, name, attribute], params) =>
        this.#selectWhere(txn, name, attribute, params[0], parseFields(fields)),
    ],
    [
      new RegExp(`^INSERT INTO (${IDENT}) \\?$`, 'i'),
      (txn, [, name], params) => this.#insert(txn, name, params[0]),
    ],
  ];

  #execute(txn: TransactionState, statement: string, params: readonly dom.Value[]): Row[] {
    const placeholders = (statement.match(/\?/g) ?? []).length;
    if (placeholders !== params.length) {
      throw badRequest(
        `Number of parameters (${params.length}) does not match the statement's ${placeholders}`,
      );
    }
    const text = statement.trim().replace(/\s+/g, ' ');
    for (const [pattern, run] of this.#grammar) {
      const match = text.match(pattern);
      if (match) return run(txn, match, params);
    }
    throw badRequest(`Syntax error: statement not supported by the fake ledger: ${statement}`);
  }

  #createTable(txn: TransactionState, name: string): Row[] {
    if (this.#table(txn, name)) throw badRequest(`Table with name: ${name} already exists`);
    const table: TableState = { name, tableId: randomId(), documents: [], indexes: [] };
    txn.newTables.set(name, table);
    this.#read(txn, SCHEMA_KEY);
    return [{ tableId: table.tableId }];
  }

  #createIndex(txn: TransactionState, name: string, attribute: string): Row[] {
    const table = this.#requireTable(txn, name);
    const pending = txn.newIndexes.filter((i) => i.table === name);
    if ([...table.indexes, ...pending].some((i) => i.attribute === attribute)) {
      throw badRequest(`Index on ${name} (${attribute}) already exists`);
    }
    txn.newIndexes.push({ table: name, attribute, indexId: randomId() });
    this.#read(txn, SCHEMA_KEY);
    return [{ tableId: table.tableId }];
  }

  #userTables(txn: TransactionState, fields: Projection): Row[] {
    this.#read(txn, SCHEMA_KEY);
    const names = new Set([...this.#tables.keys(), ...txn.newTables.keys()]);
    return [...names].map((name) => {
      const table = this.#requireTable(txn, name);
      const indexes = [...table.indexes, ...txn.newIndexes.filter((i) => i.table === name)].map((i) => ({
        expr: `[${i.attribute}]`,
        indexId: i.indexId,
        status: 'ONLINE',
      }));
      return project(toIon({ name, tableId: table.tableId, status: 'ACTIVE', indexes }), fields);
    });
  }

  #selectWhere(
    txn: TransactionState,
    name: string,
    attribute: string,
    value: dom.Value,
    fields: Projection,
  ): Row[] {
    const table = this.#requireTable(txn, name);
    this.#read(txn, keyOf(name, attribute, value));
    const pending = txn.inserts.filter((i) => i.table === name).map((i) => i.document);
    return [...table.documents, ...pending]
      .filter((doc) => doc.get(attribute)?.ionEquals(value) === true)
      .map((doc) => project(doc, fields));
  }

  #insert(txn: TransactionState, name: string, document: dom.Value): Row[] {
    this.#requireTable(txn, name);
    if (document.getType() !== IonTypes.STRUCT) throw badRequest('INSERT INTO expects a struct');
    txn.inserts.push({ table: name, document });
    return [{ documentId: randomId() }];
  }

  #commit(txn: TransactionState): void {
    for (const [key, seen] of txn.reads) {
      if ((this.#versions.get(key) ?? 0) !== seen) {
        this.occConflicts += 1;
        const message = `Optimistic concurrency control (OCC) failure encountered while committing transaction ${txn.id}`;
        throw new OccConflictException({ message, Message: message, $metadata: { httpStatusCode: 400 } });
      }
    }
    const version = ++this.#commitSequence;
    for (const [name, table] of txn.newTables) this.#tables.set(name, table);
    for (const index of txn.newIndexes) this.#tables.get(index.table)?.indexes.push(index);
    if (txn.newTables.size > 0 || txn.newIndexes.length > 0) this.#versions.set(SCHEMA_KEY, version);
    for (const { table, document } of txn.inserts) {
      this.#tables.get(table)?.documents.push(document);
      for (const [field, value] of document.fields()) this.#versions.set(keyOf(table, field, value), version);
    }
    for (const s of txn.statements) s.committed = true;
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
