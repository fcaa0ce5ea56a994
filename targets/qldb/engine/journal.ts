/**
 * The durable journal: QLDB is itself a journal, so the engine keeps one. One JSON line per
 * committed transaction (its tables, indexes and documents' new revisions, documents as Ion
 * text), appended and fdatasync'ed before CommitTransaction is answered, replayed at start.
 *
 * Why a flat file and not LevelDB (dynalite's store): a commit is one append of one line, the
 * replay is a loop, and crash safety is easy to reason about: a line counts only once its
 * newline is on disk. A crash mid-write leaves a torn last line without its newline; opening the
 * journal drops it (that commit was never acknowledged). A bad line anywhere else is corruption
 * and stops the start with the line number instead of silently losing data.
 *
 * Group commit: commits that arrive while a sync is running are written and synced together, so
 * concurrent commits share one fdatasync. No compaction: the lab's journals stay small.
 *
 * Without `sync` a commit is written, not synced: the kernel holds it, so it survives the
 * engine's process being killed (the lab's run data), not the machine stopping (--data syncs).
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { dom, dumpText } from 'ion-js';
import type { CommitRecord } from './ledger';

export const JOURNAL_FILE = 'qldb-journal.jsonl';
const FORMAT = 1;

interface JournalLine {
  readonly v: number;
  readonly ledger: string;
  readonly txn: string;
  readonly at: string;
  readonly tables: CommitRecord['tables'];
  readonly indexes: CommitRecord['indexes'];
  readonly schema?: CommitRecord['schema'];
  readonly control?: CommitRecord['control'];
  readonly docs: readonly { table: string; id: string; version: number; ion: string | null }[];
}

export function encodeRecord(record: CommitRecord): string {
  const line: JournalLine = {
    v: FORMAT,
    ledger: record.ledger,
    txn: record.transactionId,
    at: record.committedAt,
    tables: record.tables,
    indexes: record.indexes,
    ...(record.schema ? { schema: record.schema } : {}),
    ...(record.control ? { control: record.control } : {}),
    docs: record.documents.map((d) => ({
      table: d.table,
      id: d.id,
      version: d.version,
      ion: d.data === null ? null : dumpText(d.data),
    })),
  };
  return `${JSON.stringify(line)}\n`;
}

export function decodeRecord(text: string): CommitRecord {
  const line = JSON.parse(text) as JournalLine;
  if (line.v !== FORMAT) throw new Error(`unknown journal format ${line.v}`);
  return {
    ledger: line.ledger,
    transactionId: line.txn,
    committedAt: line.at,
    tables: line.tables,
    indexes: line.indexes,
    ...(line.schema ? { schema: line.schema } : {}),
    ...(line.control ? { control: line.control } : {}),
    documents: line.docs.map((d) => {
      const data = d.ion === null ? null : dom.load(d.ion);
      if (d.ion !== null && data === null) throw new Error(`document ${d.id} holds no Ion value`);
      return { table: d.table, id: d.id, version: d.version, data };
    }),
  };
}

interface Batch {
  readonly lines: string[];
  readonly done: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const done = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A failed batch is reported to each committer; no unhandled rejection if none waits.
  done.catch(() => {});
  return { lines: [], done, resolve, reject };
}

export interface OpenedJournal {
  readonly journal: Journal;
  /** Every committed record, oldest first. */
  readonly records: CommitRecord[];
  /** Bytes of a torn last line that were dropped (0 when the file ended cleanly). */
  readonly droppedBytes: number;
}

export class Journal {
  readonly path: string;
  #file: FileHandle;
  #queued: Batch = newBatch();
  #inFlight: Promise<void> | undefined;
  #failed: Error | undefined;
  readonly #sync: boolean;

  private constructor(path: string, file: FileHandle, sync: boolean) {
    this.path = path;
    this.#file = file;
    this.#sync = sync;
  }

  /** Opens (creating if missing) the journal in dataDir, drops a torn last line, and reads every record. */
  static async open(dataDir: string, { sync = true }: { sync?: boolean } = {}): Promise<OpenedJournal> {
    await mkdir(dataDir, { recursive: true });
    const path = join(dataDir, JOURNAL_FILE);
    const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return '';
      throw err;
    });
    const complete = text.lastIndexOf('\n') + 1;
    const droppedBytes = Buffer.byteLength(text.slice(complete));
    if (droppedBytes > 0) await truncate(path, Buffer.byteLength(text.slice(0, complete)));
    const records: CommitRecord[] = [];
    const lines = text.slice(0, complete).split('\n');
    lines.pop();
    lines.forEach((line, i) => {
      try {
        records.push(decodeRecord(line));
      } catch (err) {
        throw new Error(`${path}: line ${i + 1} is corrupt (${(err as Error).message}); refusing to start`);
      }
    });
    const file = await open(path, 'a');
    await file.datasync();
    // The file's directory entry must be durable too, or a new journal can vanish in a crash.
    const dir = openSync(dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return { journal: new Journal(path, file, sync), records, droppedBytes };
  }

  /** Appends one commit; resolves once it is on disk (written, without sync). */
  append(record: CommitRecord): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    const batch = this.#queued;
    batch.lines.push(encodeRecord(record));
    this.#pump();
    return batch.done;
  }

  /** Resolves once everything appended so far is on disk (a read-only commit waits for what it read). */
  barrier(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#queued.lines.length > 0) return this.#queued.done;
    return (this.#inFlight ?? Promise.resolve()).then(() => {
      if (this.#failed) throw this.#failed;
    });
  }

  async close(): Promise<void> {
    await this.barrier().catch(() => {});
    await this.#file.close();
  }

  #pump(): void {
    if (this.#inFlight || this.#queued.lines.length === 0) return;
    const batch = this.#queued;
    this.#queued = newBatch();
    this.#inFlight = (async () => {
      try {
        await this.#file.write(batch.lines.join(''));
        if (this.#sync) await this.#file.datasync();
        batch.resolve();
      } catch (err) {
        // After a failed write the file's tail is unknown: refuse every later commit.
        this.#failed = err as Error;
        batch.reject(this.#failed);
        this.#queued.reject(this.#failed);
      } finally {
        this.#inFlight = undefined;
      }
      if (!this.#failed) this.#pump();
    })();
  }
}
