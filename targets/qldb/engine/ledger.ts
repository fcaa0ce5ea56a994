/**
 * One QLDB ledger: tables of Ion documents with revisions and history, indexes, serializable
 * transactions under optimistic concurrency control (OCC), and the commit record the journal persists.
 * Statements are parsed by partiql.ts and evaluated by partiql-eval.ts over a Catalog this file
 * provides: the transaction's view of the tables (committed state overlaid with its own writes),
 * index lookups, the system views (information_schema.user_tables, _ql_committed_<table>,
 * history(<table>)).
 *
 * OCC as QLDB does it: a transaction remembers the version of everything it read (an index key
 * it looked up, every document it returned or changed, the whole table when no index served
 * the lookup, the schema for DDL and information_schema), and its commit fails with
 * OccConflictException when any of those changed after it read them. So two creates that both
 * looked up GovId X and found nothing conflict, and a table scan conflicts with any write to
 * the table, as QLDB warns it does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { dom, dumpBinary, IonTypes } from 'ion-js';
import { QldbError } from './errors';
import { indexKey as indexKeyOf } from './ion-compare';
import type { FromSource, ParsedStatement, Position, Statement } from './partiql';
import { semanticError } from './partiql';
import {
  type Catalog,
  EMPTY_ENV,
  Evaluator,
  type Lookup,
  noSuchTable,
  sourceAlias,
  type TableRow,
} from './partiql-eval';
import { utcTimestamp } from './partiql-timestamps';
import { int, isBag, str } from './partiql-values';

/**
 * QLDB's fixed quotas per ledger (https://docs.aws.amazon.com/qldb/latest/developerguide/limits.html#limits.fixed, read 2026-11-25).
 * Documents per transaction counts the documents a transaction inserts, updates or deletes.
 */
export const QLDB_QUOTAS = {
  activeTables: 20,
  totalTables: 40,
  indexesPerTable: 5,
  documentsPerTransaction: 40,
  /** Document size, encoded as Ion binary. */
  documentBytes: 128 * 1024,
  /** Statement parameter size as Ion binary, and as Ion text. */
  parameterBinaryBytes: 128 * 1024,
  parameterTextBytes: 1024 * 1024,
  statementLength: 100_000,
  transactionBytes: 4 * 1024 * 1024,
  concurrentSessions: 3000,
  /** Default quota: active ledgers per account and Region. */
  activeLedgers: 5,
  /** Length of a table name and of an indexed field name. */
  nameLength: 128,
} as const;

export const MAX_DOCUMENTS_PER_TRANSACTION = QLDB_QUOTAS.documentsPerTransaction;

/**
 * How deep a stored document may nest (containers within containers). QLDB documents no such
 * limit; this one is the engine's own, so that writing a document to the journal, reading it back
 * at start and comparing it never runs out of stack: a document that passes it is committed
 * safely, where one nested thousands deep could fail inside a commit. ion-js itself cannot load
 * Ion nested much deeper than a few thousand levels.
 */
export const MAX_DOCUMENT_DEPTH = 1_000;

/** A value's nesting depth, counted without recursion. */
function nestingDepth(root: dom.Value): number {
  let deepest = 0;
  const stack: [dom.Value, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [dom.Value, number];
    if (depth > deepest) deepest = depth;
    if (v.isNull()) continue;
    const t = v.getType();
    if (t === IonTypes.STRUCT || t === IonTypes.LIST || t === IonTypes.SEXP) {
      for (const child of v.elements()) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** A committed revision of a document (data null: the revision that deleted it). */
interface Revision {
  readonly data: dom.Value | null;
  /** QLDB's metadata.version: 0 for the first revision. */
  readonly version: number;
  readonly txId: string;
  readonly txTime: string;
  /** The block (commit) sequence number, for the block address. */
  readonly block: number;
}

interface Index {
  readonly field: string;
  readonly indexId: string;
  /** indexKey() of the value (equal numbers share one) -> ids of the documents holding it. */
  readonly entries: Map<string, Set<string>>;
}

interface Table {
  readonly name: string;
  readonly tableId: string;
  status: 'ACTIVE' | 'INACTIVE';
  /** Current revisions of live documents. */
  readonly documents: Map<string, Revision>;
  /** Every revision of every document, oldest first (history()). */
  readonly history: Map<string, Revision[]>;
  readonly indexes: Map<string, Index>;
}

export type SchemaChange =
  | { readonly op: 'dropTable' | 'undropTable'; readonly table: string; readonly tableId: string }
  | { readonly op: 'dropIndex'; readonly table: string; readonly tableId: string; readonly indexId: string };

export type LedgerControl =
  | { readonly op: 'createLedger'; readonly deletionProtection: boolean; readonly permissionsMode: string }
  | { readonly op: 'updateLedger'; readonly deletionProtection: boolean }
  | { readonly op: 'deleteLedger' };

/** What one commit changed: applied to memory at commit and replayed from the journal at start. */
export interface CommitRecord {
  readonly ledger: string;
  readonly transactionId: string;
  readonly committedAt: string;
  readonly tables: readonly { readonly name: string; readonly tableId: string }[];
  readonly indexes: readonly { readonly table: string; readonly field: string; readonly indexId: string }[];
  /** DROP TABLE, UNDROP TABLE, DROP INDEX. */
  readonly schema?: readonly SchemaChange[];
  /** A control-plane change of the ledger itself (no tables or documents then). */
  readonly control?: LedgerControl;
  /** New revisions in order; `data: null` deletes the document. */
  readonly documents: readonly {
    readonly table: string;
    readonly id: string;
    readonly version: number;
    readonly data: dom.Value | null;
  }[];
}

export class Transaction {
  /** The running commit digest; the session layer folds each statement in. */
  digest: Uint8Array;
  /** OCC read set: key -> version seen at first read. */
  readonly reads = new Map<string, number>();
  readonly newTables = new Map<string, { readonly name: string; readonly tableId: string }>();
  readonly newIndexes: { readonly table: string; readonly field: string; readonly indexId: string }[] = [];
  readonly schema: SchemaChange[] = [];
  /** table -> document id -> new data (null: deleted), in statement order. */
  readonly writes = new Map<string, Map<string, dom.Value | null>>();
  /** Ion binary bytes of the documents written, for the transaction size quota. */
  bytes = 0;
  /** Documents the last statement read, for ConsumedIOs. */
  lastReadIOs = 0;

  constructor(
    readonly id: string,
    readonly startedAt: number,
    digest: Uint8Array,
  ) {
    this.digest = digest;
  }

  get writeCount(): number {
    return this.newTables.size + this.newIndexes.length + this.schema.length + this.documentCount;
  }

  /** Documents this transaction inserts, updates or deletes. */
  get documentCount(): number {
    let n = 0;
    for (const docs of this.writes.values()) n += docs.size;
    return n;
  }
}

const SCHEMA_KEY = 's';
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const COMMITTED_PREFIX = '_ql_committed_';

/** QLDB ids (documents, tables, transactions) are 22 base62 characters. */
export function randomId(): string {
  return Array.from(randomBytes(22), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

export function toIon(value: unknown): dom.Value {
  const loaded = dom.load(dumpBinary(value));
  if (loaded === null) throw new Error('no Ion value');
  return loaded;
}

const tableKey = (table: string) => `t:${table}`;
const documentKey = (table: string, id: string) => `d:${table}:${id}`;
const indexKey = (table: string, field: string, valueText: string) => `i:${table}:${field}:${valueText}`;
const ORIGIN: Position = { line: 1, column: 1 };

function struct(fields: Record<string, dom.Value>): dom.Value {
  return new dom.Struct(Object.entries(fields));
}

/** An upper bound of a value's Ion binary size, without encoding it. */
function sizeBound(v: dom.Value): number {
  let n = 16 + v.getAnnotations().reduce((a, x) => a + x.length * 3 + 8, 0);
  if (v.isNull()) return n;
  switch (v.getType()) {
    case IonTypes.STRUCT:
      for (const [k, x] of v.fields()) n += k.length * 3 + 8 + sizeBound(x);
      return n;
    case IonTypes.LIST:
    case IonTypes.SEXP:
      for (const x of v.elements()) n += sizeBound(x);
      return n;
    case IonTypes.STRING:
    case IonTypes.SYMBOL:
      return n + (v.stringValue() ?? '').length * 3;
    case IonTypes.BLOB:
    case IonTypes.CLOB:
      return n + (v.uInt8ArrayValue()?.length ?? 0);
    case IonTypes.INT:
      return n + Math.ceil((v.bigIntValue() ?? 0n).toString(16).length / 2);
    case IonTypes.DECIMAL:
      return n + (v.decimalValue()?.toString().length ?? 0);
    default:
      return n + 16;
  }
}

export class Ledger {
  /** OCC conflicts answered since start. */
  occConflicts = 0;
  /** Active tables by name. */
  readonly #tables = new Map<string, Table>();
  /** Dropped (inactive) tables by id, for UNDROP and information_schema. */
  readonly #inactive = new Map<string, Table>();
  /** Read-set key -> sequence number of the last commit that changed it. */
  readonly #versions = new Map<string, number>();
  #sequence = 0;
  /** The journal strand of this ledger's block addresses. */
  readonly strandId: string;

  constructor(readonly name: string) {
    this.strandId = createHash('sha256').update(name).digest('base64url').replace(/[-_]/g, 'A').slice(0, 22);
  }

  begin(id: string, now: number, digest: Uint8Array): Transaction {
    return new Transaction(id, now, digest);
  }

  /** Runs one parsed statement in the transaction and returns its result values; refused statements change nothing. */
  execute(
    txn: Transaction,
    parsed: ParsedStatement,
    params: readonly dom.Value[],
    now = Date.now(),
    budgetMs?: number,
  ): dom.Value[] {
    if (params.length !== parsed.parameterCount) {
      throw QldbError.badRequest(
        `Number of parameters (${params.length}) does not match the statement's ${parsed.parameterCount} placeholders`,
      );
    }
    const ev = new Evaluator(this.#catalog(txn, now), params, budgetMs);
    const values = this.#run(txn, parsed.statement, ev);
    txn.lastReadIOs = ev.reads;
    return values;
  }

  #run(txn: Transaction, s: Statement, ev: Evaluator): dom.Value[] {
    switch (s.kind) {
      case 'select':
        return ev.select(s);
      case 'createTable':
        return [this.#createTable(txn, s.table, s.pos)];
      case 'dropTable':
        return [this.#dropTable(txn, s.table, s.pos)];
      case 'undropTable':
        return [this.#undropTable(txn, s.tableId, s.pos)];
      case 'createIndex':
        return [this.#createIndex(txn, s.table, s.field, s.pos)];
      case 'dropIndex':
        return [this.#dropIndex(txn, s.table, s.indexId, s.purge, s.pos)];
      case 'insert': {
        const table = s.target.table;
        this.#requireTable(txn, table, s.target.pos);
        const value = ev.eval(s.value, EMPTY_ENV);
        // A bag inserts each of its documents, and so does an Ion list: AWS's own Node.js tutorial
        // inserts its sample data as `INSERT INTO <table> ?` with a list of documents
        // (getting-started.nodejs.step-3.html).
        const many =
          value !== undefined && !value.isNull() && (isBag(value) || value.getType() === IonTypes.LIST);
        const docs = many ? value.elements() : [value];
        const writes = docs.map((doc): [string, dom.Value] => {
          if (doc === undefined || doc.getType() !== IonTypes.STRUCT || doc.isNull()) {
            throw semanticError(
              s.value.pos,
              `INSERT INTO ${table} expects a struct or a bag of structs, got ${doc === undefined ? 'MISSING' : doc.getType().name}`,
            );
          }
          return [randomId(), doc];
        });
        this.#write(txn, table, writes);
        return writes.map(([id]) => struct({ documentId: str(id) }));
      }
      case 'update':
      case 'delete': {
        const t = s.target;
        if (t.table.startsWith(COMMITTED_PREFIX) || t.table.toLowerCase() === 'information_schema') {
          throw semanticError(t.pos, `${t.table} is read-only`);
        }
        this.#requireTable(txn, t.table, t.pos);
        const byName = t.by ?? '\u0000id';
        const source = {
          expr: { k: 'id', name: t.table, quoted: true, pos: t.pos } as const,
          as: t.as,
          by: byName,
          pos: t.pos,
        };
        const alias = sourceAlias(source, 0);
        // Nested sources (`FROM t AS r, @r.Owners AS o`) each get a hidden AT name: the index of
        // the element a row is bound to, so that `SET o.x = ...` and `REMOVE o` reach it.
        const nested = s.kind === 'update' ? s.nested : [];
        const sources: FromSource[] = [
          source,
          ...nested.map((n, i) => ({ ...n, at: n.at ?? `\u0000at${i}` })),
        ];
        const rows = ev.bindings(sources, s.where, EMPTY_ENV);
        const docs = new Map<string, dom.Value | null>();
        for (const env of rows) {
          const id = env.lookup(byName, true).value?.stringValue() ?? '';
          if (s.kind === 'delete') {
            docs.set(id, null);
            continue;
          }
          // Several rows (nested elements) of one document edit it in turn; a removed one stays removed.
          const doc = docs.has(id) ? docs.get(id) : (env.lookup(alias, true).value as dom.Value);
          if (doc === null || doc === undefined) continue;
          const prefixes = new Map<string, (string | number)[]>();
          for (const [i, n] of sources.slice(1).entries()) {
            const steps = ev.dmlSteps(n.expr, alias, env, prefixes);
            const at = env.lookup(n.at as string, true).value;
            if (at !== undefined && at.getType() === IonTypes.INT) steps.push(Number(at.bigIntValue()));
            const name = sourceAlias(n, i + 1);
            prefixes.set(name.toLowerCase(), steps);
          }
          docs.set(id, ev.applyOps(doc, s.ops, alias, env, prefixes));
        }
        const writes = [...docs];
        this.#write(txn, t.table, writes);
        return writes.map(([id]) => struct({ documentId: str(id) }));
      }
    }
  }

  /**
   * Validates the read set and applies the writes; returns what the journal must persist, or
   * undefined for a transaction that wrote nothing. Synchronous, so commits never interleave.
   */
  commit(txn: Transaction, now: number): CommitRecord | undefined {
    for (const [key, seen] of txn.reads) {
      if ((this.#versions.get(key) ?? 0) !== seen) {
        this.occConflicts += 1;
        throw QldbError.occConflict(txn.id);
      }
    }
    if (txn.writeCount === 0) return undefined;
    const documents: CommitRecord['documents'][number][] = [];
    for (const [table, docs] of txn.writes) {
      const t = this.#tables.get(table);
      for (const [id, data] of docs) {
        const previous = t?.history.get(id);
        const last = previous?.[previous.length - 1];
        documents.push({ table, id, data, version: last ? last.version + 1 : 0 });
      }
    }
    const record: CommitRecord = {
      ledger: this.name,
      transactionId: txn.id,
      committedAt: new Date(now).toISOString(),
      tables: [...txn.newTables.values()],
      indexes: txn.newIndexes,
      ...(txn.schema.length > 0 ? { schema: txn.schema } : {}),
      documents,
    };
    this.apply(record);
    return record;
  }

  /** Applies a committed record: at commit, and when the journal is replayed. */
  apply(record: CommitRecord): void {
    const sequence = ++this.#sequence;
    const bump = (key: string) => this.#versions.set(key, sequence);
    for (const { name, tableId } of record.tables) {
      this.#tables.set(name, {
        name,
        tableId,
        status: 'ACTIVE',
        documents: new Map(),
        history: new Map(),
        indexes: new Map(),
      });
      bump(SCHEMA_KEY);
    }
    for (const { table, field, indexId } of record.indexes) {
      const t = this.#committedTable(table);
      const index: Index = { field, indexId, entries: new Map() };
      for (const [id, revision] of t.documents) if (revision.data) this.#indexAdd(index, id, revision.data);
      t.indexes.set(field, index);
      bump(SCHEMA_KEY);
    }
    for (const { table, id, version, data } of record.documents) {
      const t = this.#committedTable(table);
      const previous = t.documents.get(id);
      bump(tableKey(table));
      bump(documentKey(table, id));
      for (const index of t.indexes.values()) {
        for (const text of [previous?.data, data].map((d) => this.#indexText(index, d))) {
          if (text !== undefined) bump(indexKey(table, index.field, text));
        }
        if (previous?.data) this.#indexRemove(index, id, previous.data);
        if (data) this.#indexAdd(index, id, data);
      }
      const revision: Revision = {
        data,
        version,
        txId: record.transactionId,
        txTime: record.committedAt,
        block: sequence,
      };
      let revisions = t.history.get(id);
      if (!revisions) {
        revisions = [];
        t.history.set(id, revisions);
      }
      revisions.push(revision);
      if (data) t.documents.set(id, revision);
      else t.documents.delete(id);
    }
    for (const change of record.schema ?? []) {
      bump(SCHEMA_KEY);
      if (change.op === 'dropTable') {
        const t = this.#tables.get(change.table);
        if (t && t.tableId === change.tableId) {
          this.#tables.delete(change.table);
          t.status = 'INACTIVE';
          this.#inactive.set(t.tableId, t);
          bump(tableKey(change.table));
        }
      } else if (change.op === 'undropTable') {
        const t = this.#inactive.get(change.tableId);
        if (t) {
          this.#inactive.delete(change.tableId);
          t.status = 'ACTIVE';
          this.#tables.set(t.name, t);
          bump(tableKey(t.name));
        }
      } else if (change.op === 'dropIndex') {
        const t = this.#tables.get(change.table);
        if (t) {
          for (const [field, index] of t.indexes)
            if (index.indexId === change.indexId) t.indexes.delete(field);
        }
      }
    }
  }

  /** Names of the active tables. */
  tableNames(): string[] {
    return [...this.#tables.keys()];
  }

  tableId(table: string): string | undefined {
    return this.#tables.get(table)?.tableId;
  }

  indexedFields(table: string): string[] {
    return [...(this.#tables.get(table)?.indexes.keys() ?? [])];
  }

  /** Committed documents of a table, oldest first. */
  documents(table: string): dom.Value[] {
    const out: dom.Value[] = [];
    for (const r of this.#tables.get(table)?.documents.values() ?? []) if (r.data) out.push(r.data);
    return out;
  }

  /** A table (with indexes) that exists before anything runs: fixtures for tests. */
  defineTable(name: string, indexedFields: readonly string[] = []): void {
    this.apply({
      ledger: this.name,
      transactionId: randomId(),
      committedAt: new Date().toISOString(),
      tables: [{ name, tableId: randomId() }],
      indexes: indexedFields.map((field) => ({ table: name, field, indexId: randomId() })),
      documents: [],
    });
  }

  // --- the catalog a statement evaluates over ---

  #catalog(txn: Transaction, now: number): Catalog {
    return {
      txId: txn.id,
      now,
      table: (name, lookup) => (this.#visible(txn, name) ? this.#rows(txn, name, lookup) : undefined),
      isIndexed: (table, field) => this.#tables.get(table)?.indexes.has(field) ?? false,
      system: (name, args, pos) => this.#system(txn, name, args, pos),
    };
  }

  #visible(txn: Transaction, name: string): boolean {
    if (txn.schema.some((c) => c.op === 'dropTable' && c.table === name)) return false;
    if (txn.schema.some((c) => c.op === 'undropTable' && c.table === name)) return true;
    return this.#tables.has(name) || txn.newTables.has(name);
  }

  /** The documents the transaction sees: committed state overlaid with its own writes. */
  #rows(txn: Transaction, name: string, lookup: Lookup | undefined): TableRow[] {
    const committed = this.#tables.get(name);
    const pending = txn.writes.get(name);
    let candidates: Iterable<string> = [];
    let matchesLookup: (data: dom.Value, id: string) => boolean = () => true;
    if (lookup && typeof lookup.field !== 'string') {
      const ids = lookup.values.flatMap((v) =>
        v.getType() === IonTypes.STRING || v.getType() === IonTypes.SYMBOL ? [v.stringValue() ?? ''] : [],
      );
      candidates = ids;
      const wanted = new Set(ids);
      matchesLookup = (_data, id) => wanted.has(id);
      for (const id of ids) this.#read(txn, documentKey(name, id));
    } else if (lookup && typeof lookup.field === 'string' && committed?.indexes.has(lookup.field)) {
      const field: string = lookup.field;
      const keys = new Set<string>();
      for (const v of lookup.values) {
        // A null finds nothing (PartiQL's NULL = x is never true), so it reads no key either.
        const text = indexKeyOf(v);
        if (text !== undefined) keys.add(text);
      }
      const ids = new Set<string>();
      for (const text of keys) {
        this.#read(txn, indexKey(name, field, text));
        for (const id of committed.indexes.get(field)?.entries.get(text) ?? []) ids.add(id);
      }
      candidates = ids;
      matchesLookup = (data) => {
        const k = indexKeyOf(data.get(field));
        return k !== undefined && keys.has(k);
      };
    } else if (committed) {
      this.#read(txn, tableKey(name));
      candidates = committed.documents.keys();
    }
    // A scan read the whole table's key, which any write to the table bumps: no per-document keys.
    const scanned =
      lookup === undefined || (typeof lookup.field === 'string' && !committed?.indexes.has(lookup.field));
    const out: TableRow[] = [];
    const seen = new Set<string>();
    for (const id of candidates) {
      if (seen.has(id)) continue;
      seen.add(id);
      const data = pending?.has(id) ? pending.get(id) : committed?.documents.get(id)?.data;
      if (!data) continue;
      if (!scanned) this.#read(txn, documentKey(name, id));
      out.push({ id, data });
    }
    for (const [id, data] of pending ?? []) {
      if (seen.has(id) || data === null || !matchesLookup(data, id)) continue;
      out.push({ id, data });
    }
    return out;
  }

  #system(
    txn: Transaction,
    name: string,
    args: readonly dom.Value[] | undefined,
    pos: Position,
  ): dom.Value[] | undefined {
    if (name.toLowerCase() === 'information_schema.user_tables') {
      this.#read(txn, SCHEMA_KEY);
      return this.#userTables(txn);
    }
    if (name.startsWith(COMMITTED_PREFIX)) {
      const table = this.#tables.get(name.slice(COMMITTED_PREFIX.length));
      if (!table) return undefined;
      this.#read(txn, tableKey(table.name));
      return [...table.documents.entries()].map(([id, r]) => this.#revisionView(id, r));
    }
    if (name.startsWith('history:') || name.startsWith('history-id:')) {
      const table = name.startsWith('history:')
        ? this.#tables.get(name.slice('history:'.length))
        : this.#tableById(name.slice('history-id:'.length));
      if (!table) return undefined;
      const [start, end] = (args ?? []).map((v) => {
        const ts = v.getType() === IonTypes.TIMESTAMP ? v.timestampValue() : null;
        if (!ts) throw semanticError(pos, 'history() bounds must be timestamps');
        return ts.getDate().getTime();
      });
      this.#read(txn, tableKey(table.name));
      const out: dom.Value[] = [];
      for (const [id, revisions] of table.history) {
        for (const [i, r] of revisions.entries()) {
          // The bounds select the revisions that were current at some time in [start, end] (both
          // inclusive), "not the time range during which revisions were committed"
          // (working.history.html): a revision is current from its commit until the next one's.
          const from = Date.parse(r.txTime);
          const next = revisions[i + 1];
          const until = next ? Date.parse(next.txTime) : Number.POSITIVE_INFINITY;
          if ((end !== undefined && from > end) || (start !== undefined && until <= start)) continue;
          out.push(this.#revisionView(id, r));
        }
      }
      return out;
    }
    return undefined;
  }

  /** A committed revision as QLDB shows it: blockAddress, hash, data (absent once deleted), metadata. */
  #revisionView(id: string, r: Revision): dom.Value {
    const metadata = struct({
      id: str(id),
      version: int(r.version),
      txTime: new dom.Timestamp(utcTimestamp(Date.parse(r.txTime))),
      txId: str(r.txId),
    });
    const hash = createHash('sha256')
      .update(dumpBinary(r.data ?? null))
      .update(dumpBinary(metadata))
      .digest();
    const fields: Record<string, dom.Value> = {
      blockAddress: struct({ strandId: str(this.strandId), sequenceNo: int(r.block) }),
      hash: new dom.Blob(new Uint8Array(hash)),
    };
    if (r.data) fields.data = r.data;
    fields.metadata = metadata;
    return struct(fields);
  }

  // --- internals ---

  /** An active or dropped table by its id. */
  #tableById(tableId: string): Table | undefined {
    for (const t of this.#tables.values()) if (t.tableId === tableId) return t;
    return this.#inactive.get(tableId);
  }

  #committedTable(name: string): Table {
    const t = this.#tables.get(name);
    if (!t) throw new Error(`journal names table ${name} before creating it`);
    return t;
  }

  #read(txn: Transaction, key: string): void {
    if (!txn.reads.has(key)) txn.reads.set(key, this.#versions.get(key) ?? 0);
  }

  #requireTable(txn: Transaction, name: string, pos: Position = ORIGIN): void {
    if (!this.#visible(txn, name)) throw noSuchTable(name, pos);
  }

  #pending(txn: Transaction, table: string): Map<string, dom.Value | null> {
    let docs = txn.writes.get(table);
    if (!docs) {
      docs = new Map();
      txn.writes.set(table, docs);
    }
    return docs;
  }

  #indexText(index: Index, data: dom.Value | null | undefined): string | undefined {
    return indexKeyOf(data?.get(index.field));
  }

  /**
   * Stages one statement's writes, all or none: a statement that would take the transaction past a
   * quota (documents per transaction, document size, transaction size) is refused before it changes
   * anything. QLDB documents the quotas, not their error texts; these messages are ours.
   */
  #write(txn: Transaction, table: string, writes: readonly (readonly [string, dom.Value | null])[]): void {
    const pending = txn.writes.get(table);
    const added = new Set(writes.map(([id]) => id).filter((id) => !pending?.has(id))).size;
    const total = txn.documentCount + added;
    if (total > QLDB_QUOTAS.documentsPerTransaction) {
      throw QldbError.badRequest(
        `Transaction ${txn.id} exceeds the limit of ${QLDB_QUOTAS.documentsPerTransaction} documents modified in a transaction (this statement would make it ${total})`,
      );
    }
    // Sizes: a cheap upper bound first; Ion binary is encoded only when the bound nears a quota.
    let bytes = 0;
    for (const [id, data] of writes) {
      if (!data) continue;
      const depth = nestingDepth(data);
      if (depth > MAX_DOCUMENT_DEPTH) {
        throw QldbError.badRequest(
          `Document ${id} nests ${depth} levels deep, over the local engine's limit of ${MAX_DOCUMENT_DEPTH}`,
        );
      }
      let size = sizeBound(data);
      if (size > QLDB_QUOTAS.documentBytes) size = dumpBinary(data).length;
      if (size > QLDB_QUOTAS.documentBytes) {
        throw QldbError.badRequest(
          `Document ${id} is ${size} bytes as Ion binary, over the limit of ${QLDB_QUOTAS.documentBytes} bytes per document`,
        );
      }
      bytes += size;
    }
    if (txn.bytes + bytes > QLDB_QUOTAS.transactionBytes) {
      // The bounds say it may be too big: measure what the transaction would hold exactly.
      let exact = 0;
      const staged = new Map(txn.writes);
      staged.set(table, new Map([...(pending ?? []), ...writes]));
      for (const docs of staged.values()) for (const d of docs.values()) if (d) exact += dumpBinary(d).length;
      if (exact > QLDB_QUOTAS.transactionBytes) {
        throw QldbError.badRequest(
          `Transaction ${txn.id} exceeds the limit of ${QLDB_QUOTAS.transactionBytes} bytes per transaction (this statement would make it ${exact})`,
        );
      }
      txn.bytes = exact;
    } else txn.bytes += bytes;
    const docs = this.#pending(txn, table);
    for (const [id, data] of writes) docs.set(id, data);
  }

  #indexAdd(index: Index, id: string, data: dom.Value): void {
    const text = this.#indexText(index, data);
    if (text === undefined) return;
    let ids = index.entries.get(text);
    if (!ids) {
      ids = new Set();
      index.entries.set(text, ids);
    }
    ids.add(id);
  }

  #indexRemove(index: Index, id: string, data: dom.Value): void {
    const text = this.#indexText(index, data);
    if (text === undefined) return;
    const ids = index.entries.get(text);
    ids?.delete(id);
    if (ids?.size === 0) index.entries.delete(text);
  }

  #activeTableCount(txn: Transaction): number {
    let n = this.#tables.size + txn.newTables.size;
    for (const c of txn.schema) n += c.op === 'dropTable' ? -1 : c.op === 'undropTable' ? 1 : 0;
    return n;
  }

  #createTable(txn: Transaction, name: string, pos: Position): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    if (!TABLE_NAME.test(name) || name.length > QLDB_QUOTAS.nameLength || name.startsWith('_ql')) {
      throw semanticError(
        pos,
        `Invalid table name ${name}: 1-${QLDB_QUOTAS.nameLength} letters, digits and underscores, not starting with a digit or _ql`,
      );
    }
    if (this.#visible(txn, name)) throw QldbError.badRequest(`Table with name: ${name} already exists`);
    if (this.#activeTableCount(txn) >= QLDB_QUOTAS.activeTables) {
      throw QldbError.badRequest(
        `The ledger has reached the limit of ${QLDB_QUOTAS.activeTables} active tables`,
      );
    }
    if (this.#activeTableCount(txn) + this.#inactive.size >= QLDB_QUOTAS.totalTables) {
      throw QldbError.badRequest(
        `The ledger has reached the limit of ${QLDB_QUOTAS.totalTables} tables, active and inactive (dropped tables count)`,
      );
    }
    const tableId = randomId();
    txn.newTables.set(name, { name, tableId });
    return struct({ tableId: str(tableId) });
  }

  #dropTable(txn: Transaction, name: string, pos: Position): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    this.#requireTable(txn, name, pos);
    const table = this.#tables.get(name);
    if (!table)
      throw QldbError.badRequest(`Table ${name} was created in this transaction and cannot be dropped in it`);
    txn.schema.push({ op: 'dropTable', table: name, tableId: table.tableId });
    return struct({ tableId: str(table.tableId) });
  }

  #undropTable(txn: Transaction, tableId: string, pos: Position): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    const table = this.#inactive.get(tableId);
    if (!table) {
      if ([...this.#tables.values()].some((t) => t.tableId === tableId)) {
        throw QldbError.badRequest(`Table ${tableId} is already active`);
      }
      throw semanticError(pos, `No such table with id '${tableId}'`);
    }
    if (this.#visible(txn, table.name)) {
      throw QldbError.badRequest(`An active table with name ${table.name} already exists`);
    }
    if (this.#activeTableCount(txn) >= QLDB_QUOTAS.activeTables) {
      throw QldbError.badRequest(
        `The ledger has reached the limit of ${QLDB_QUOTAS.activeTables} active tables`,
      );
    }
    txn.schema.push({ op: 'undropTable', table: table.name, tableId });
    return struct({ tableId: str(tableId) });
  }

  #createIndex(txn: Transaction, name: string, field: string, pos: Position): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    this.#requireTable(txn, name, pos);
    if (field.length > QLDB_QUOTAS.nameLength) {
      throw semanticError(pos, `An indexed field name can be at most ${QLDB_QUOTAS.nameLength} characters`);
    }
    const committed = this.#tables.get(name)?.indexes;
    const pending = txn.newIndexes.filter((i) => i.table === name);
    if (committed?.has(field) || pending.some((i) => i.field === field)) {
      throw QldbError.badRequest(`Index on ${name} (${field}) already exists`);
    }
    if ((committed?.size ?? 0) + pending.length >= QLDB_QUOTAS.indexesPerTable) {
      throw QldbError.badRequest(
        `Table ${name} already has ${QLDB_QUOTAS.indexesPerTable} indexes, the limit per table`,
      );
    }
    txn.newIndexes.push({ table: name, field, indexId: randomId() });
    const tableId = this.#tables.get(name)?.tableId ?? txn.newTables.get(name)?.tableId ?? '';
    return struct({ tableId: str(tableId) });
  }

  #dropIndex(txn: Transaction, name: string, indexId: string, purge: boolean, pos: Position): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    this.#requireTable(txn, name, pos);
    // "DROP INDEX ... WITH (purge = true)": QLDB requires the purge option.
    if (!purge) throw semanticError(pos, 'DROP INDEX requires WITH (purge = true)');
    const table = this.#tables.get(name);
    const index = [...(table?.indexes.values() ?? [])].find((i) => i.indexId === indexId);
    if (!table || !index) throw semanticError(pos, `No such index '${indexId}' on table ${name}`);
    txn.schema.push({ op: 'dropIndex', table: name, tableId: table.tableId, indexId });
    return struct({ tableId: str(table.tableId) });
  }

  /** information_schema.user_tables as this transaction sees it. */
  #userTables(txn: Transaction): dom.Value[] {
    const rows: dom.Value[] = [];
    const row = (
      name: string,
      tableId: string,
      status: string,
      indexes: { field: string; indexId: string }[],
    ) =>
      struct({
        name: str(name),
        tableId: str(tableId),
        status: str(status),
        indexes: new dom.List(
          indexes.map((i) =>
            struct({ expr: str(`[${i.field}]`), indexId: str(i.indexId), status: str('ONLINE') }),
          ),
        ),
      });
    const dropped = new Set(txn.schema.filter((c) => c.op === 'dropTable').map((c) => c.tableId));
    const undropped = new Set(txn.schema.filter((c) => c.op === 'undropTable').map((c) => c.tableId));
    const droppedIndexes = new Set(txn.schema.flatMap((c) => ('indexId' in c ? [c.indexId] : [])));
    const all = [...this.#tables.values(), ...this.#inactive.values()];
    for (const t of all) {
      const active = (t.status === 'ACTIVE' && !dropped.has(t.tableId)) || undropped.has(t.tableId);
      const indexes = [
        ...t.indexes.values(),
        ...txn.newIndexes.filter((i) => i.table === t.name && t.status === 'ACTIVE'),
      ]
        .filter((i) => !droppedIndexes.has(i.indexId))
        .map((i) => ({ field: i.field, indexId: i.indexId }));
      rows.push(row(t.name, t.tableId, active ? 'ACTIVE' : 'INACTIVE', indexes));
    }
    for (const t of txn.newTables.values()) {
      const indexes = txn.newIndexes.filter((i) => i.table === t.name);
      rows.push(row(t.name, t.tableId, 'ACTIVE', indexes));
    }
    return rows;
  }
}
