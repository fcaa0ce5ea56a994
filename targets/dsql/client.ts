/**
 * One PostgreSQL connection to an Aurora DSQL cluster, as the functions and the schema custom
 * resource open it: `pg`'s Client over TLS (verified: DSQL requires TLS, and nothing here turns
 * verification off), an IAM token as the password, bounded connect and query times, and the
 * frontend messages it writes counted (pg-message-counter.ts).
 *
 * Why `pg` (node-postgres) rather than `postgres` (postgres.js): both are well kept; postgres.js
 * is smaller (with the signer, ~29 KB vs ~41 KB zipped, both far under the 150 KB budget), but
 * it is built around its own pool, pipelining and reconnects, while this lab manages exactly one
 * connection per environment and must know what each call sent. pg's Client is one connection
 * with an explicit connect/end, `connectionTimeoutMillis` and `query_timeout`, and its protocol
 * stream is reachable for counting.
 */
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { CONNECTION_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../lambda/shared/http-client';
import { countFrontendMessages } from '../../lambda/shared/pg-message-counter';

export const DSQL_PORT = 5432;
/** DSQL has one database per cluster. */
export const DSQL_DATABASE = 'postgres';
/** SQLSTATE of DSQL's optimistic concurrency conflicts (and PostgreSQL's serialization_failure). */
export const SERIALIZATION_FAILURE = '40001';

export interface DsqlEndpoint {
  readonly host: string;
  /** @default DSQL_PORT */
  readonly port?: number;
  readonly user: string;
  /** @default DSQL_DATABASE */
  readonly database?: string;
}

export interface OpenClientOptions {
  readonly endpoint: DsqlEndpoint;
  /** The IAM token (a promise: it may have to be signed first). */
  readonly password: () => Promise<string>;
  /** Extra TLS options (tests pass `ca`); deployed functions trust the system store. */
  readonly tls?: ConnectionOptions;
  /** Whole handshake: TCP, SSLRequest, TLS, startup and auth. @default CONNECTION_TIMEOUT_MS */
  readonly connectTimeoutMs?: number;
  /** Each query, on the client (DSQL does not take SET statement_timeout). @default REQUEST_TIMEOUT_MS */
  readonly queryTimeoutMs?: number;
  /** Hears of every frontend message written. */
  readonly onMessages: (n: number, roundTrips: number) => void;
}

/** A pg Client wired as described above; connect() it yourself. */
export function newDsqlClient(opts: OpenClientOptions): pg.Client {
  const client = new pg.Client({
    host: opts.endpoint.host,
    port: opts.endpoint.port ?? DSQL_PORT,
    user: opts.endpoint.user,
    database: opts.endpoint.database ?? DSQL_DATABASE,
    password: opts.password,
    // SNI and certificate check against the endpoint name, as DSQL requires.
    ssl: { rejectUnauthorized: true, ...opts.tls },
    connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECTION_TIMEOUT_MS,
    query_timeout: opts.queryTimeoutMs ?? REQUEST_TIMEOUT_MS,
  });
  countFrontendMessages(client, opts.onMessages);
  return client;
}

/** Drops a connection at once (a query in doubt, an abort): no Terminate, no waiting. */
export function destroyClient(client: pg.Client): void {
  (client.connection as unknown as { stream: { destroy(): void } }).stream.destroy();
  client.end().catch(() => {});
}

export function isSerializationFailure(error: unknown): boolean {
  return error instanceof pg.DatabaseError && error.code === SERIALIZATION_FAILURE;
}
