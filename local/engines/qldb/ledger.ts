/**
 * One QLDB ledger: tables of Ion documents with revisions, indexes, serializable transactions
 * under optimistic concurrency control (OCC), and the commit record the journal persists.
 *
 * OCC as QLDB does it: a transaction remembers the version of everything it read (an index key
 * it looked up, every document it returned or changed, the whole table when no index served
 * the lookup, the schema for DDL and information_schema), and its commit fails with
 * OccConflictException when any of those changed after it read them. So two creates that both
 * looked up GovId X and found nothing conflict, and a table scan conflicts with any write to
 * the table, as QLDB warns it does.
 */
import { randomBytes } from 'node:crypto';
import { dom, dumpBinary, IonTypes } from 'ion-js';
import { QldbError } from './errors';
import { indexKey as indexKeyOf, partiqlEquals } from './ion-compare';
import {
  type Condition,
  INFORMATION_SCHEMA_TABLES,
  type Literal,
  type Operand,
  type ParsedStatement,
  type Projection,
} from './partiql';

/**
 * QLDB's fixed quota "Number of documents in a transaction: 40"
 * (https://docs.aws.amazon.com/qldb/latest/developerguide/limits.html#limits.fixed), counted
 * here as the documents a transaction inserts, updates or deletes.
 */
export const MAX_DOCUMENTS_PER_TRANSACTION = 40;

/** A committed revision of a document. */
interface Revision {
  readonly data: dom.Value;
  /** QLDB's metadata.version: 0 for the first revision. */
  readonly version: number;
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
  readonly documents: Map<string, Revision>;
  readonly indexes: Map<string, Index>;
}

/** What one commit changed: applied to memory at commit and replayed from the journal at start. */
export interface CommitRecord {
  readonly ledger: string;
  readonly transactionId: string;
  readonly committedAt: string;
  readonly tables: readonly { readonly name: string; readonly tableId: string }[];
  readonly indexes: readonly { readonly table: string; readonly field: string; readonly indexId: string }[];
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
  /** table -> document id -> new data (null: deleted), in statement order. */
  readonly writes = new Map<string, Map<string, dom.Value | null>>();

  constructor(
    readonly id: string,
    readonly startedAt: number,
    digest: Uint8Array,
  ) {
    this.digest = digest;
  }

  get writeCount(): number {
    return this.newTables.size + this.newIndexes.length + this.documentCount;
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

/** QLDB ids (documents, tables, transactions) are 22 base62 characters. */
export function randomId(): string {
  return Array.from(randomBytes(22), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

export function toIon(value: unknown): dom.Value {
  const loaded = dom.load(dumpBinary(value));
  if (loaded === null) throw new Error('no Ion value');
  return loaded;
}

function literalValue(value: Literal): dom.Value {
  if (value !== null && typeof value === 'object') {
    const loaded = dom.load(value.number);
    if (loaded === null) throw QldbError.badRequest(`Syntax error: invalid number ${value.number}`);
    return loaded;
  }
  return toIon(value);
}

const tableKey = (table: string) => `t:${table}`;
const documentKey = (table: string, id: string) => `d:${table}:${id}`;
const indexKey = (table: string, field: string, valueText: string) => `i:${table}:${field}:${valueText}`;

function noSuchTable(name: string): QldbError {
  return QldbError.badRequest(`Semantic Error: at line 1, column 1: No such variable named '${name}'`);
}

interface ResolvedCondition {
  readonly field: string;
  readonly value: dom.Value;
}

function matches(doc: dom.Value, where: readonly ResolvedCondition[]): boolean {
  return where.every((c) => partiqlEquals(doc.get(c.field), c.value));
}

function project(doc: dom.Value, projection: Projection): dom.Value {
  if (projection === '*') return doc;
  // SELECT VALUE of a missing field: PartiQL yields MISSING, which a result bag turns into null.
  if ('value' in projection) return doc.get(projection.value) ?? toIon(null);
  const out: Record<string, dom.Value> = {};
  for (const f of projection) {
    const v = doc.get(f);
    if (v !== null) out[f] = v;
  }
  return toIon(out);
}

export class Ledger {
  /** OCC conflicts answered since start. */
  occConflicts = 0;
  readonly #tables = new Map<string, Table>();
  /** Read-set key -> sequence number of the last commit that changed it. */
  readonly #versions = new Map<string, number>();
  #sequence = 0;

  constructor(readonly name: string) {}

  begin(id: string, now: number, digest: Uint8Array): Transaction {
    return new Transaction(id, now, digest);
  }

  /** Runs one parsed statement in the transaction and returns its result values. */
  execute(txn: Transaction, parsed: ParsedStatement, params: readonly dom.Value[]): dom.Value[] {
    if (params.length !== parsed.parameterCount) {
      throw QldbError.badRequest(
        `Number of parameters (${params.length}) does not match the statement's ${parsed.parameterCount} placeholders`,
      );
    }
    const value = (o: Operand): dom.Value => (o.kind === 'param' ? params[o.index] : literalValue(o.value));
    const resolve = (where: readonly Condition[]): ResolvedCondition[] =>
      where.map((c) => ({ field: c.field, value: value(c.operand) }));
    const s = parsed.statement;
    switch (s.kind) {
      case 'createTable':
        return [this.#createTable(txn, s.table)];
      case 'createIndex':
        return [this.#createIndex(txn, s.table, s.field)];
      case 'select': {
        if (s.table === INFORMATION_SCHEMA_TABLES) {
          this.#read(txn, SCHEMA_KEY);
          return this.#userTables(txn)
            .filter((row) => matches(row, resolve(s.where)))
            .map((row) => project(row, s.projection));
        }
        return this.#matching(txn, s.table, resolve(s.where)).map((row) => project(row.data, s.projection));
      }
      case 'insert': {
        this.#requireTable(txn, s.table);
        const docs = s.documents.map(value);
        const ids = docs.map((doc) => {
          if (doc.getType() !== IonTypes.STRUCT || doc.isNull()) {
            throw QldbError.badRequest(`INSERT INTO ${s.table} expects a struct, got ${doc.getType().name}`);
          }
          return randomId();
        });
        this.#write(
          txn,
          s.table,
          ids.map((id, i) => [id, docs[i]]),
        );
        return ids.map((id) => toIon({ documentId: id }));
      }
      case 'update': {
        const set = s.set.map((a) => ({ field: a.field, value: value(a.operand) }));
        const rows = this.#matching(txn, s.table, resolve(s.where));
        this.#write(
          txn,
          s.table,
          rows.map((row) => {
            const fields: Record<string, dom.Value> = Object.fromEntries(row.data.fields());
            for (const a of set) fields[a.field] = a.value;
            return [row.id, toIon(fields)];
          }),
        );
        return rows.map((row) => toIon({ documentId: row.id }));
      }
      case 'delete': {
        const rows = this.#matching(txn, s.table, resolve(s.where));
        this.#write(
          txn,
          s.table,
          rows.map((row) => [row.id, null]),
        );
        return rows.map((row) => toIon({ documentId: row.id }));
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
      for (const [id, data] of docs) {
        const previous = this.#tables.get(table)?.documents.get(id);
        documents.push({ table, id, data, version: previous ? previous.version + 1 : 0 });
      }
    }
    const record: CommitRecord = {
      ledger: this.name,
      transactionId: txn.id,
      committedAt: new Date(now).toISOString(),
      tables: [...txn.newTables.values()],
      indexes: txn.newIndexes,
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
      this.#tables.set(name, { name, tableId, documents: new Map(), indexes: new Map() });
      bump(SCHEMA_KEY);
    }
    for (const { table, field, indexId } of record.indexes) {
      const t = this.#committedTable(table);
      const index: Index = { field, indexId, entries: new Map() };
      for (const [id, revision] of t.documents) this.#indexAdd(index, id, revision.data);
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
        if (previous) this.#indexRemove(index, id, previous.data);
        if (data) this.#indexAdd(index, id, data);
      }
      if (data) t.documents.set(id, { data, version });
      else t.documents.delete(id);
    }
  }

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
    return [...(this.#tables.get(table)?.documents.values() ?? [])].map((r) => r.data);
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

  // --- internals ---

  #committedTable(name: string): Table {
    const t = this.#tables.get(name);
    if (!t) throw new Error(`journal names table ${name} before creating it`);
    return t;
  }

  #read(txn: Transaction, key: string): void {
    if (!txn.reads.has(key)) txn.reads.set(key, this.#versions.get(key) ?? 0);
  }

  #exists(txn: Transaction, name: string): boolean {
    return this.#tables.has(name) || txn.newTables.has(name);
  }

  #requireTable(txn: Transaction, name: string): void {
    if (!this.#exists(txn, name)) throw noSuchTable(name);
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
   * Stages one statement's writes, all or none: a statement that would take the transaction past
   * QLDB's documents-per-transaction quota is refused before it changes anything. QLDB documents
   * the quota but not the error's text; BadRequestException with this message is our reading.
   */
  #write(txn: Transaction, table: string, writes: readonly (readonly [string, dom.Value | null])[]): void {
    const pending = txn.writes.get(table);
    const added = new Set(writes.map(([id]) => id).filter((id) => !pending?.has(id))).size;
    const total = txn.documentCount + added;
    if (total > MAX_DOCUMENTS_PER_TRANSACTION) {
      throw QldbError.badRequest(
        `Transaction ${txn.id} exceeds the limit of ${MAX_DOCUMENTS_PER_TRANSACTION} documents modified in a transaction (this statement would make it ${total})`,
      );
    }
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

  /** The documents the transaction sees that match: committed state overlaid with its own writes. */
  #matching(
    txn: Transaction,
    name: string,
    where: readonly ResolvedCondition[],
  ): { readonly id: string; readonly data: dom.Value }[] {
    this.#requireTable(txn, name);
    const committed = this.#tables.get(name);
    const pending = txn.writes.get(name);
    let candidates: Iterable<string> = [];
    if (committed) {
      // An equality on an indexed field is an index lookup; anything else scans the table.
      const served = where.find((c) => committed.indexes.has(c.field));
      if (served) {
        // A null finds nothing (PartiQL's NULL = x is never true), so it reads no key either.
        const text = indexKeyOf(served.value);
        if (text !== undefined) {
          this.#read(txn, indexKey(name, served.field, text));
          candidates = [...(committed.indexes.get(served.field)?.entries.get(text) ?? [])];
        }
      } else {
        this.#read(txn, tableKey(name));
        candidates = committed.documents.keys();
      }
    }
    const out: { id: string; data: dom.Value }[] = [];
    const seen = new Set<string>();
    for (const id of candidates) {
      seen.add(id);
      const data = pending?.has(id) ? pending.get(id) : committed?.documents.get(id)?.data;
      if (!data || !matches(data, where)) continue;
      this.#read(txn, documentKey(name, id));
      out.push({ id, data });
    }
    for (const [id, data] of pending ?? []) {
      if (seen.has(id) || data === null || !matches(data, where)) continue;
      out.push({ id, data });
    }
    return out;
  }

  #createTable(txn: Transaction, name: string): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    if (this.#exists(txn, name)) throw QldbError.badRequest(`Table with name: ${name} already exists`);
    const tableId = randomId();
    txn.newTables.set(name, { name, tableId });
    return toIon({ tableId });
  }

  #createIndex(txn: Transaction, name: string, field: string): dom.Value {
    this.#read(txn, SCHEMA_KEY);
    this.#requireTable(txn, name);
    const existing = this.#tables.get(name)?.indexes.has(field) ?? false;
    if (existing || txn.newIndexes.some((i) => i.table === name && i.field === field)) {
      throw QldbError.badRequest(`Index on ${name} (${field}) already exists`);
    }
    txn.newIndexes.push({ table: name, field, indexId: randomId() });
    const tableId = this.#tables.get(name)?.tableId ?? txn.newTables.get(name)?.tableId;
    return toIon({ tableId });
  }

  /** information_schema.user_tables as this transaction sees it. */
  #userTables(txn: Transaction): dom.Value[] {
    const rows: dom.Value[] = [];
    const all = [...this.#tables.values(), ...txn.newTables.values()];
    for (const table of all) {
      const committed = this.#tables.get(table.name);
      const indexes = [
        ...(committed ? [...committed.indexes.values()] : []),
        ...txn.newIndexes.filter((i) => i.table === table.name),
      ].map((i) => ({ expr: `[${i.field}]`, indexId: i.indexId, status: 'ONLINE' }));
      rows.push(toIon({ name: table.name, tableId: table.tableId, status: 'ACTIVE', indexes }));
    }
    return rows;
  }
}
