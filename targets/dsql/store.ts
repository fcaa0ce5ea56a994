/**
 * The dsql target's PersonStore: Aurora DSQL over the PostgreSQL protocol (dsql-client.ts),
 * with the connection managed here so the lab knows what each call cost:
 *
 * - keep-alive 'on': one connection per execution environment, opened lazily and reused;
 *   recycled before DSQL's 60-minute connection limit (at 55 minutes); one the server has
 *   closed while idle is replaced by the next call, which reports a new connection; a reused
 *   connection that dies under a statement is replaced once and the statement sent again.
 * - keep-alive 'off': every call connects (TCP, SSLRequest, TLS, startup, token), sends its
 *   statement and closes (Terminate), as a function without connection reuse would.
 *
 * DSQL runs every transaction at repeatable read with optimistic concurrency: a write that
 * conflicts with one committed after its snapshot fails with SQLSTATE 40001. Each statement
 * here is its own transaction, so it is simply sent again, at most MAX_CONFLICT_ATTEMPTS times
 * with a short jittered pause. Bounds as for DynamoDB (http-client.ts): connect 1 s, each
 * statement 2 s (on the client: DSQL takes no SET statement_timeout), the whole call within
 * the caller's AbortSignal (5 s).
 */

import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { BillMeter } from '../../lambda/shared/bill-meter';
import {
  EnvError,
  type KeepAliveVariant,
  readKeepAlive,
  readTlsMaxVersion,
  requireEnv,
  type TlsMaxVersion,
} from '../../lambda/shared/env';
import type { Person } from '../../lambda/shared/person';
import {
  InvalidInputError,
  type PersonStore,
  type Story,
  TOP_STORIES,
} from '../../lambda/shared/person-store';
import { DSQL_PORT, type DsqlEndpoint, destroyClient, isSerializationFailure, newDsqlClient } from './client';
import { clusterEndpoint, type DsqlTokenSource, dsqlTokenSource } from './token';

/** Recycle a kept connection after this long: DSQL ends connections at 60 minutes. */
export const MAX_CONNECTION_AGE_MS = 55 * 60 * 1000;
/** Attempts of one statement that keeps meeting optimistic-concurrency conflicts (40001). */
export const MAX_CONFLICT_ATTEMPTS = 3;
/** Pause before a conflict retry: base + up to as much again at random (conflicting writers spread). */
const CONFLICT_BACKOFF_MS = 10;

const COLUMNS = 'govid, first_name, last_name, dob::text AS dob, govid_type, address';
export const INSERT_PERSON = `INSERT INTO person (govid, first_name, last_name, dob, govid_type, address)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (govid) DO NOTHING`;
export const SELECT_PERSON = `SELECT ${COLUMNS} FROM person WHERE govid = $1`;
/**
 * An overwrite is a re-creation: every field, a new creation time and no views yet (the story's
 * count starts again, as on every target), only if the row exists.
 */
export const OVERWRITE_PERSON = `UPDATE person SET first_name = $2, last_name = $3, dob = $4, govid_type = $5,
address = $6, created_at = now(), views = NULL WHERE govid = $1`;
export const UPDATE_ADDRESS = `UPDATE person SET address = $2 WHERE govid = $1 RETURNING ${COLUMNS}`;
/** Served by the person_by_type index (govid_type, created_at): never a scan of the table. */
export const QUERY_BY_TYPE = `SELECT ${COLUMNS} FROM person WHERE govid_type = $1
ORDER BY created_at DESC, govid DESC LIMIT $2`;

/** A view: the count raised and the row back in one statement (one transaction, OCC at COMMIT). */
export const VIEW_STORY = `UPDATE person SET views = COALESCE(views, 0) + 1 WHERE govid = $1
RETURNING ${COLUMNS}, views`;
/**
 * Served by the person_by_views index, read backwards: never a scan or a sort of the table.
 * A row never viewed has views NULL, which DESC would list first: the WHERE leaves it out.
 */
export const TOP_STORIES_SQL = `SELECT ${COLUMNS}, views FROM person WHERE views IS NOT NULL
ORDER BY views DESC LIMIT $1`;

interface PersonRow {
  readonly govid: string;
  readonly first_name: string;
  readonly last_name: string;
  readonly dob: string;
  readonly govid_type: string;
  readonly address: string | null;
}

function fromRow(row: PersonRow): Person {
  return {
    GovId: row.govid,
    FirstName: row.first_name,
    LastName: row.last_name,
    DOB: row.dob,
    GovIdType: row.govid_type,
    ...(row.address === null ? {} : { Address: row.address }),
  };
}

/** pg returns a bigint as a string: the count is far below 2^53. */
function storyOf(row: PersonRow & { readonly views: string | number | null }): Story {
  return { person: fromRow(row), views: Number(row.views ?? 0) };
}

function toRow(p: Person): PersonRow {
  return {
    govid: p.GovId,
    first_name: p.FirstName,
    last_name: p.LastName,
    dob: p.DOB,
    govid_type: p.GovIdType,
    address: p.Address ?? null,
  };
}

/** A row's stored size, modeled: its values in UTF-8 plus created_at's 8 bytes. */
function rowBytes(r: PersonRow): number {
  const values = [r.govid, r.first_name, r.last_name, r.dob, r.govid_type, r.address ?? ''];
  return values.reduce((n, v) => n + Buffer.byteLength(String(v), 'utf8'), 8);
}

function samePerson(a: Person, b: Person): boolean {
  return (
    a.GovId === b.GovId &&
    a.FirstName === b.FirstName &&
    a.LastName === b.LastName &&
    a.DOB === b.DOB &&
    a.GovIdType === b.GovIdType &&
    (a.Address ?? null) === (b.Address ?? null)
  );
}

export interface DsqlStoreOptions {
  readonly endpoint: DsqlEndpoint;
  readonly tokens: DsqlTokenSource;
  readonly keepAlive: KeepAliveVariant;
  /** Extra TLS options (tests pass `ca`). */
  readonly tls?: ConnectionOptions;
  /** @default MAX_CONNECTION_AGE_MS */
  readonly maxConnectionAgeMs?: number;
  /** @default CONNECTION_TIMEOUT_MS (http-client.ts) */
  readonly connectTimeoutMs?: number;
  /** @default REQUEST_TIMEOUT_MS (http-client.ts) */
  readonly queryTimeoutMs?: number;
  /** Hears of each client before it connects (another PostgreSQL target listens to its notices). */
  readonly onClient?: (client: pg.Client) => void;
}

/** Every workload PersonStore names, none optional (commands by name are QLDB's: PostgreSQL's are counted as messages). */
export type DsqlPersonStore = Required<Omit<PersonStore, 'settle' | 'commandsSent' | 'deadlineMs'>> &
  Pick<PersonStore, 'deadlineMs'> &
  DsqlStoreExtras;

interface DsqlStoreExtras {
  /** Connections opened (attempted) so far. */
  socketsOpened(): number;
  /** PostgreSQL frontend messages written so far, SSLRequest, startup and token included. */
  requestsSent(): number;
  /** Statements sent again after a 40001 conflict (tests: the retry path ran). */
  conflictRetries(): number;
  /** Closes the kept connection, if any. */
  close(): Promise<void>;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the call was aborted');
}

/** Settles with the promise, or rejects when the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return untilAborted(new Promise<void>((resolve) => setTimeout(resolve, ms)), signal);
}

/** A server error (SQLSTATE) leaves the connection usable; anything else leaves it in doubt. */
function isServerError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** The connection died under the statement (not a timeout: that one is not sent again). */
function isConnectionDrop(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  // The server ended the session: shutdown, crash, idle timeout (class 57P), or a connection exception (08).
  if (isServerError(error)) return /^(08|57P0[1-5])/.test(code ?? '');
  return (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    /Connection terminated|not queryable|connection error/i.test(error.message)
  );
}

/** The request fields behind the person table's columns (a not-null or check error names the column). */
const COLUMN_FIELDS: Record<string, string> = {
  govid: 'GovId',
  first_name: 'FirstName',
  last_name: 'LastName',
  dob: 'DOB',
  govid_type: 'GovIdType',
  address: 'Address',
};

/** The values a statement sent, by the request's field name. */
type Sent = { readonly [field: string]: string | number | null | undefined };

/**
 * SQLSTATE class 22 (data exception: a date out of range, a bad format) or 23 (integrity
 * constraint): the statement's data was refused, so the request was bad. It is never sent again.
 */
function dataError(error: unknown, sent: Sent): InvalidInputError | undefined {
  if (!(error instanceof pg.DatabaseError) || !/^2[23]/.test(error.code ?? '')) return undefined;
  const fromColumn = error.column === undefined ? undefined : COLUMN_FIELDS[error.column];
  // 22007 / 22008: a date/time value; DOB is the only one any statement here sends.
  const fromDate = /^2200[78]$/.test(error.code ?? '') && 'DOB' in sent ? 'DOB' : undefined;
  // Otherwise PostgreSQL quotes the value it refused: find whose it is.
  const fromValue = Object.keys(sent).find((field) => {
    const v = sent[field];
    return typeof v === 'string' && v !== '' && error.message.includes(`"${v}"`);
  });
  const field = fromColumn ?? fromDate ?? fromValue;
  const what = field === undefined ? 'a value' : field;
  return new InvalidInputError(
    `${what} refused by the database: ${error.message} (SQLSTATE ${error.code})`,
    field,
    {
      cause: error,
    },
  );
}

interface Kept {
  readonly client: pg.Client;
  readonly openedAt: number;
  dead: boolean;
}

export function createDsqlStore(opts: DsqlStoreOptions): DsqlPersonStore {
  const { keepAlive } = opts;
  const maxAge = opts.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS;
  const counts = { sockets: 0, messages: 0, roundTrips: 0, conflictRetries: 0 };
  let kept: Kept | undefined;
  let opening: Promise<Kept> | undefined;

  const open = async (signal: AbortSignal): Promise<Kept> => {
    const client = newDsqlClient({
      endpoint: opts.endpoint,
      password: () => opts.tokens.token(),
      tls: opts.tls,
      connectTimeoutMs: opts.connectTimeoutMs,
      queryTimeoutMs: opts.queryTimeoutMs,
      onMessages: (n, roundTrips) => {
        counts.messages += n;
        counts.roundTrips += roundTrips;
      },
    });
    opts.onClient?.(client);
    const conn: Kept = { client, openedAt: Date.now(), dead: false };
    // Without a listener, a server closing an idle connection would crash the environment.
    client.on('error', () => {
      conn.dead = true;
    });
    client.on('end', () => {
      conn.dead = true;
    });
    counts.sockets += 1;
    try {
      await untilAborted(client.connect(), signal);
      return conn;
    } catch (error) {
      destroyClient(client);
      if (signal.aborted || isServerError(error)) throw error;
      const { host, port } = opts.endpoint;
      throw new Error(`DSQL connect to ${host}:${port ?? DSQL_PORT} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };

  const acquire = async (signal: AbortSignal): Promise<{ conn: Kept; reused: boolean }> => {
    if (keepAlive === 'off') return { conn: await open(signal), reused: false };
    if (kept && !kept.dead && Date.now() - kept.openedAt < maxAge) return { conn: kept, reused: true };
    if (opening === undefined) {
      // Too old or closed by the server: close it (Terminate, if it still can) and open anew.
      if (kept && !kept.dead) kept.client.end().catch(() => {});
      kept = undefined;
      opening = open(signal).finally(() => {
        opening = undefined;
      });
      kept = await opening;
      return { conn: kept, reused: false };
    }
    return { conn: await opening, reused: true };
  };

  const release = (conn: Kept): void => {
    // Terminate is written at once; nothing waits for the server to close its side.
    if (keepAlive === 'off') conn.client.end().catch(() => {});
  };

  const discard = (conn: Kept, error: unknown): void => {
    if (isServerError(error) && !isConnectionDrop(error) && keepAlive === 'on') return;
    conn.dead = true;
    destroyClient(conn.client);
    if (kept === conn) kept = undefined;
  };

  // DSQL's DPUs are modeled from what each transaction did (targets/dsql/cost.ts, its meter):
  // its statement time as compute (an upper bound: it includes the round trip), the bytes of
  // the rows it returned as read, the rows it wrote (the table's and the by-type index's).
  const meter = new BillMeter();
  const read = (rows: readonly PersonRow[]) =>
    meter.add(
      'dsql.bytesRead',
      rows.reduce((n, r) => n + rowBytes(r), 0),
      'modeled',
    );
  const wrote = (person: Person) => {
    const base = rowBytes(toRow(person));
    // The index row: govid_type, created_at (8 bytes) and the primary key it points to.
    const index = Buffer.byteLength(person.GovIdType) + 8 + Buffer.byteLength(person.GovId);
    meter.add('dsql.rowsWritten', 2, 'modeled');
    meter.add('dsql.bytesWritten', base + index, 'modeled');
  };

  const run = async <T>(
    signal: AbortSignal,
    op: (client: pg.Client, afterDrop: boolean) => Promise<T>,
    sent: Sent = {},
  ): Promise<T> => {
    if (signal.aborted) throw abortError(signal);
    let afterDrop = false;
    let conflicts = 0;
    for (;;) {
      let acquired: { conn: Kept; reused: boolean } | undefined;
      try {
        acquired = await acquire(signal);
        const started = performance.now();
        // Every attempt is a transaction DSQL bills, a conflict's retry too.
        meter.add('dsql.transactions', 1, 'modeled');
        const result = await untilAborted(op(acquired.conn.client, afterDrop), signal).finally(() =>
          meter.add('dsql.computeSeconds', (performance.now() - started) / 1000, 'modeled'),
        );
        release(acquired.conn);
        return result;
      } catch (error) {
        if (acquired) discard(acquired.conn, error);
        if (signal.aborted) throw error;
        const refused = dataError(error, sent);
        if (refused) throw refused;
        if (isSerializationFailure(error) && conflicts + 1 < MAX_CONFLICT_ATTEMPTS) {
          conflicts += 1;
          counts.conflictRetries += 1;
          await sleep(CONFLICT_BACKOFF_MS * (1 + Math.random()), signal);
          continue;
        }
        // A kept connection closed by the server: once more on a new one.
        if (!afterDrop && acquired?.reused && isConnectionDrop(error)) {
          afterDrop = true;
          continue;
        }
        throw error;
      }
    }
  };

  const select = async (client: pg.Client, govId: string): Promise<Person | undefined> => {
    const out = await client.query<PersonRow>(SELECT_PERSON, [govId]);
    read(out.rows);
    return out.rows[0] ? fromRow(out.rows[0]) : undefined;
  };

  return {
    name: 'DSQL',
    socketsOpened: () => counts.sockets,
    requestsSent: () => counts.messages,
    roundTripsMade: () => counts.roundTrips,
    billed: () => meter.snapshot(),
    conflictRetries: () => counts.conflictRetries,
    async prewarm(signal) {
      // Connects (TCP, TLS, startup, token) and runs the cheapest statement there is.
      await run(signal, (client) => client.query('SELECT 1'));
    },
    async close() {
      const conn = kept;
      kept = undefined;
      if (conn && !conn.dead) await conn.client.end().catch(() => {});
    },
    create(person, signal) {
      return run(
        signal,
        async (client, afterDrop) => {
          const out = await client.query(INSERT_PERSON, [
            person.GovId,
            person.FirstName,
            person.LastName,
            person.DOB,
            person.GovIdType,
            person.Address ?? null,
          ]);
          if (out.rowCount === 1) {
            wrote(person);
            return 'created';
          }
          // The first attempt may have committed before its connection died: our own row is ours.
          if (afterDrop) {
            const stored = await select(client, person.GovId);
            if (stored && samePerson(stored, person)) return 'created';
          }
          return 'exists';
        },
        { ...person },
      );
    },
    get(govId, signal) {
      return run(signal, (client) => select(client, govId), { govId });
    },
    overwrite(person, signal) {
      // Sent again after a drop it is still right: the row exists, and gets the same fields.
      return run(
        signal,
        async (client) => {
          const out = await client.query(OVERWRITE_PERSON, [
            person.GovId,
            person.FirstName,
            person.LastName,
            person.DOB,
            person.GovIdType,
            person.Address ?? null,
          ]);
          if (out.rowCount !== 1) return 'missing';
          wrote(person);
          return 'replaced';
        },
        { ...person },
      );
    },
    update(govId, changes, signal) {
      // The updated row in the same answer (RETURNING): no second read.
      return run(
        signal,
        async (client) => {
          const out = await client.query<PersonRow>(UPDATE_ADDRESS, [govId, changes.Address]);
          if (!out.rows[0]) return undefined;
          // The row is rewritten whole; the index's columns did not change.
          meter.add('dsql.rowsWritten', 1, 'modeled');
          meter.add('dsql.bytesWritten', rowBytes(out.rows[0]), 'modeled');
          return fromRow(out.rows[0]);
        },
        { govId, Address: changes.Address },
      );
    },
    view(govId, signal) {
      // Sent again after a conflict it counts once: the conflicting attempt did not commit.
      return run(
        signal,
        async (client) => {
          const out = await client.query<PersonRow & { views: string }>(VIEW_STORY, [govId]);
          if (!out.rows[0]) return undefined;
          // The row and its person_by_views index entry.
          meter.add('dsql.rowsWritten', 2, 'modeled');
          meter.add('dsql.bytesWritten', rowBytes(out.rows[0]) + 8 + Buffer.byteLength(govId), 'modeled');
          return storyOf(out.rows[0]);
        },
        { govId },
      );
    },
    top10(signal) {
      return run(signal, async (client) => {
        const out = await client.query<PersonRow & { views: string }>(TOP_STORIES_SQL, [TOP_STORIES]);
        read(out.rows);
        return out.rows.map(storyOf);
      });
    },
    query(govIdType, limit, signal) {
      return run(
        signal,
        async (client) => {
          const out = await client.query<PersonRow>(QUERY_BY_TYPE, [govIdType, limit]);
          read(out.rows);
          return out.rows.map(fromRow);
        },
        { govIdType, limit },
      );
    },
  };
}

export interface DsqlEnv {
  readonly endpoint: DsqlEndpoint;
  readonly region: string;
  readonly keepAlive: KeepAliveVariant;
  /** LAB_TLS_MAX_VERSION: the newest TLS version the connection offers. @default Node's */
  readonly tlsMaxVersion?: TlsMaxVersion;
}

/**
 * DSQL_CLUSTER_ID, DSQL_USER and AWS_REGION from the stack; DSQL_ENDPOINT and DSQL_PORT only
 * where the cluster is reached elsewhere than `<id>.dsql.<region>.on.aws:5432` (the local lab).
 */
export function readDsqlEnv(env: NodeJS.ProcessEnv = process.env): DsqlEnv {
  const clusterId = requireEnv('DSQL_CLUSTER_ID', env);
  const region = requireEnv('AWS_REGION', env);
  const user = requireEnv('DSQL_USER', env);
  if (user === 'admin') throw new EnvError("DSQL_USER must be the functions' database role, not admin");
  const portText = env.DSQL_PORT ?? String(DSQL_PORT);
  const port = Number(portText);
  if (!(Number.isInteger(port) && port > 0 && port < 65_536)) {
    throw new EnvError(`Environment variable DSQL_PORT must be a TCP port, got ${JSON.stringify(portText)}`);
  }
  const host = env.DSQL_ENDPOINT?.trim() || clusterEndpoint(clusterId, region);
  const tlsMaxVersion = readTlsMaxVersion(env);
  return {
    endpoint: { host, port, user },
    region,
    keepAlive: readKeepAlive(env),
    ...(tlsMaxVersion ? { tlsMaxVersion } : {}),
  };
}

/** The store a deployed function uses, built once per execution environment (no network at init). */
export function dsqlStoreFromEnv(env: NodeJS.ProcessEnv = process.env): DsqlPersonStore {
  const { endpoint, region, keepAlive, tlsMaxVersion } = readDsqlEnv(env);
  const tokens = dsqlTokenSource({ hostname: endpoint.host, region, action: 'DbConnect' });
  return createDsqlStore({
    endpoint,
    tokens,
    keepAlive,
    ...(tlsMaxVersion ? { tls: { maxVersion: tlsMaxVersion } } : {}),
  });
}
