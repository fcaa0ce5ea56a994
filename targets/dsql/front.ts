/**
 * What makes a local PostgreSQL answer as Aurora DSQL does: a PostgreSQL-protocol front between
 * the network model (which has already terminated TLS) and the server.
 *
 *   client --TLS--> [network model] --plaintext--> [this front] --unix socket--> postgres
 *
 * - Authentication: PostgreSQL cannot check a SigV4 token, so the front answers the client's
 *   StartupMessage itself with AuthenticationCleartextPassword (what DSQL asks for), reads the
 *   PasswordMessage, and verifies the IAM token (targets/dsql/verify-token.ts): DbConnectAdmin for
 *   `admin`, DbConnect for any other role, host = the endpoint the client used. A refused token
 *   gets DSQL's FATAL 08006 "unable to accept connection, access denied" with the reason as its
 *   HINT, and the connection ends. The round trip is
 *   real: the client waits for the request and the server's answer, as against DSQL. DSQL has
 *   one database, `postgres`: any other name is refused as a database that does not exist.
 * - Only then it opens the server connection (a Unix socket in a private directory: nothing
 *   else reaches the server, see postgres.ts) with the client's own startup parameters, and
 *   relays both ways: AuthenticationOk, ParameterStatus, ReadyForQuery and every result come
 *   from PostgreSQL itself.
 * - Every statement, in simple Query and extended-protocol Parse messages alike, is classified
 *   (dsql-sql.ts). One DSQL refuses is not run: the front sends PostgreSQL a marker that fails
 *   to parse in its place, so the server's transaction fails exactly as it would on a real
 *   error and the protocol stays in step, and rewrites that error into DSQL's (SQLSTATE and
 *   message). DSQL's rule of one DDL statement, or DML, per transaction is checked where the
 *   statement runs: a Query, or an Execute (the portal's statement is known from Parse/Bind).
 * - DSQL's dialect, where PostgreSQL lacks it, in both protocols: `CREATE INDEX ASYNC` builds
 *   the index at once (locally there is no job to wait for); `AWS IAM GRANT role TO 'arn'` and
 *   `AWS IAM REVOKE role FROM 'arn'` edit the local sys.iam_pg_role_mappings table (postgres.ts
 *   makes it). Locally every function signs with the lab's one key, so that mapping is recorded,
 *   not enforced.
 * - Conflicts: DSQL takes no locks; the first transaction to commit wins and the other fails at
 *   its COMMIT with SQLSTATE 40001 (OC000 rows, OC001 schema). PostgreSQL gives up a lock wait
 *   after LOCK_TIMEOUT (postgres.ts). A write outside a transaction block (it commits at once,
 *   so it is the first committer) that waits on a transaction sitting idle in its block dooms
 *   that transaction: the front rolls it back on the server and opens a fresh one the client
 *   does not see, the write proceeds, and the doomed transaction's COMMIT fails with OC000. Two
 *   explicit transactions writing the same row: the second writer cannot know yet who will
 *   commit first, so it waits up to LOCK_TIMEOUT and fails at that statement with OC000 (first
 *   writer wins). A lock timeout, deadlock or serialization failure reaches the client as
 *   DSQL's 40001. The README lists where this still differs from DSQL.
 */
import net from 'node:net';
import { dirname } from 'node:path';
import type { AwsCredentialIdentity } from '@smithy/types';
import pg from 'pg';
import {
  authenticationCleartextPassword,
  BodyReader,
  CANCEL_REQUEST_CODE,
  errorFields,
  errorResponse,
  GSSENC_REQUEST_CODE,
  MessageReader,
  PROTOCOL_3,
  parseMessage,
  queryMessage,
  readyForQuery,
  SSL_REQUEST_CODE,
  startupMessage,
  startupParameters,
} from '../../core/pg-wire';
import { SUPERUSER } from '../../local/engines/postgres';
import { endThenDestroy } from '../../local/network/delay-layer';
import {
  type Classified,
  classify,
  type DsqlError,
  noteKind,
  type StatementKind,
  splitStatements,
  type TransactionKinds,
  transactionRule,
} from './sql';
import { verifyDsqlToken } from './verify-token';

/** How often, and how many times, a waiting write looks for the open transaction it waits on (under LOCK_TIMEOUT). */
const BLOCK_POLL_MS = 15;
const BLOCK_POLLS = 30;
/** DSQL's one database. */
const DSQL_DATABASE = 'postgres';
/** A startup or password message larger than this is not one. */
const MAX_HANDSHAKE_MESSAGE = 64 * 1024;

export interface DsqlFrontOptions {
  /** PostgreSQL's Unix socket (postgres.ts: trust behind a private directory). */
  readonly backendSocket: string;
  /** The endpoint name clients connect to; tokens must be signed for it. */
  readonly expectedHost: string;
  /**
   * The keys tokens may be signed with: the functions' local credentials, and the local caller
   * the lab's environment file hands to outside clients (psql with an AWS CLI token).
   */
  readonly credentials: AwsCredentialIdentity | readonly AwsCredentialIdentity[];
  /** @default 0 (any free port) */
  readonly port?: number;
  readonly log?: (line: string) => void;
}

export interface DsqlFrontStats {
  readonly accepted: number;
  /** Connections refused at authentication. */
  readonly refused: number;
  /** Statements answered with DSQL's refusal instead of reaching PostgreSQL. */
  readonly statementsRefused: number;
  /** Errors answered as DSQL's optimistic-concurrency conflict (40001). */
  readonly conflicts: number;
}

export interface DsqlFront {
  readonly port: number;
  stats(): DsqlFrontStats;
  close(): Promise<void>;
}

/** The known key a token names in its credential scope, else the first (which then refuses it). */
function signingKeyOf(
  token: string,
  keys: AwsCredentialIdentity | readonly AwsCredentialIdentity[],
): AwsCredentialIdentity {
  const list: readonly AwsCredentialIdentity[] = Array.isArray(keys) ? keys : [keys as AwsCredentialIdentity];
  const scope = new URLSearchParams(token.slice(token.indexOf('/?') + 2)).get('X-Amz-Credential') ?? '';
  const keyId = scope.split('/')[0];
  return list.find((k) => k.accessKeyId === keyId) ?? (list[0] as AwsCredentialIdentity);
}

/** The marker sent in place of a refused statement: it fails to parse, naming itself. */
const REFUSAL_MARKER = 'dsql_front_refusal_';
const REFUSAL_IN_ERROR = new RegExp(`"${REFUSAL_MARKER}(\\d+)"`);

/** SQLSTATEs that are, in DSQL, an optimistic-concurrency conflict. */
const CONFLICT_CODES = new Set(['55P03' /* lock_not_available */, '40001', '40P01']);
/** DSQL's messages for a conflict on rows and on the schema. */
export const OC000 = 'change conflicts with another transaction, please retry: (OC000)';
export const OC001 = 'schema has been updated by another transaction, please retry: (OC001)';

/** DSQL's dialect translated, statement by statement; anything else unchanged. */
export function dsqlDialect(sql: string): string {
  const statements = splitStatements(sql);
  const rewritten = statements.map((s) => classify(s).rewritten);
  if (rewritten.every((r) => r === undefined)) return sql;
  return statements.map((s, i) => rewritten[i] ?? s.text).join(';\n');
}

/**
 * Where a response from the server goes: to the client (as it is, or with its ReadyForQuery
 * saying idle), or nowhere (the answer to something the front sent on its own).
 */
type ResponseGroup = 'client' | 'client-idle' | 'drop';

interface SessionHooks {
  readonly counts: { statementsRefused: number; conflicts: number };
  /** Writes to the session's server connection, after whatever was relayed before. */
  readonly toServer: (message: Buffer) => void;
  /** The session sent a write outside a transaction block (it may meet an open transaction's lock). */
  readonly onAutocommitWrite: (session: Session) => void;
}

/**
 * One client's session as the front sees it: the statements it prepared, its transaction (from
 * what it sent and from the server's ReadyForQuery), the refusals in flight, and whether its
 * transaction has lost a conflict and must fail at COMMIT.
 */
export class Session {
  readonly #statements = new Map<string, Classified>();
  readonly #portals = new Map<string, string>();
  readonly #refusals = new Map<number, DsqlError>();
  #nextRefusal = 1;
  /** Inside BEGIN ... COMMIT (as the client sees it). */
  #block = false;
  /** The client's last transaction status: I idle, T in a transaction, E failed. */
  #status = 'I';
  #kinds: TransactionKinds = { ddl: false, dml: false };
  /** One entry per ReadyForQuery the server owes, in order. */
  readonly #groups: ResponseGroup[] = [];
  #lastKind: StatementKind = 'other';
  /** The transaction lost a conflict to a write that committed first: its COMMIT fails. */
  #doomed = false;
  /** A doomed COMMIT was refused in this extended-protocol batch: its Sync ends it. */
  #commitRefusedInBatch = false;
  /** The server's process id (BackendKeyData), to find who blocks whom. */
  pid = 0;

  constructor(private readonly hooks: SessionHooks) {}

  /** Idle inside an open transaction, with nothing in flight: it can be made to lose. */
  idleInTransaction(): boolean {
    return this.#groups.length === 0 && this.#status === 'T' && !this.#doomed;
  }

  /** Inside a transaction block, failed or not. */
  inTransaction(): boolean {
    return this.#status !== 'I';
  }

  /** Something sent has not been answered yet. */
  busy(): boolean {
    return this.#groups.length > 0;
  }

  /**
   * Ends this idle transaction on the server now and opens a fresh one, unseen by the client,
   * whose later COMMIT fails as DSQL's does when another transaction committed a conflicting
   * write first: the holder's row locks go, and the write waiting on them proceeds.
   */
  doom(): void {
    this.#doomed = true;
    this.hooks.toServer(queryMessage('ROLLBACK; BEGIN'));
    this.#groups.push('drop');
  }

  #refuse(error: DsqlError): string {
    const id = this.#nextRefusal++;
    this.#refusals.set(id, error);
    this.hooks.counts.statementsRefused += 1;
    return `${REFUSAL_MARKER}${id}`;
  }

  /** The COMMIT of a doomed transaction: a failing marker now, a ROLLBACK right after its batch. */
  #refuseDoomedCommit(): string {
    this.hooks.counts.conflicts += 1;
    this.hooks.counts.statementsRefused -= 1;
    // A schema change that lost is DSQL's OC001; rows, OC000.
    return this.#refuse({ code: '40001', message: this.#kinds.ddl ? OC001 : OC000 });
  }

  #resetTransaction(): void {
    this.#kinds = { ddl: false, dml: false };
  }

  /** Applies a statement's effect on the transaction; returns DSQL's refusal, if any. */
  #run(c: Classified, implicitBlock: boolean): DsqlError | undefined {
    if (c.kind === 'begin') {
      this.#block = true;
      this.#resetTransaction();
      return undefined;
    }
    if (c.kind === 'end') {
      this.#block = false;
      this.#resetTransaction();
      return undefined;
    }
    const broken = this.#block || implicitBlock ? transactionRule(this.#kinds, c.kind) : undefined;
    if (broken) return broken;
    noteKind(this.#kinds, c.kind);
    this.#lastKind = c.kind;
    if (c.kind === 'dml' && !this.#block) this.hooks.onAutocommitWrite(this);
    return undefined;
  }

  /** A client message, as it goes to the server (with anything the front adds after it). */
  fromClient(message: Buffer): Buffer {
    switch (message[0]) {
      case 0x51 /* Q */:
        return this.#query(message.subarray(5, message.length - 1).toString('utf8'));
      case 0x50 /* P */:
        return this.#parse(message);
      case 0x42 /* B */:
        {
          const body = new BodyReader(message);
          const portal = body.cstring();
          this.#portals.set(portal, body.cstring());
          return message;
        }
      case 0x45 /* E */:
        {
          const portal = new BodyReader(message).cstring();
          const c = this.#statements.get(this.#portals.get(portal) ?? '');
          if (c?.commit && this.#doomed) {
            this.#commitRefusedInBatch = true;
            const marker = this.#refuseDoomedCommit();
            return parseMessage(marker, marker);
          }
          const broken = c && (c.refusal ? undefined : this.#run(c, true));
          if (!broken) return message;
          // Refused where it runs: the server gets a failing Parse instead, and skips to Sync.
          const marker = this.#refuse(broken);
          return parseMessage(marker, marker);
        }
      case 0x43 /* C: Close */:
        {
          const what = String.fromCharCode(message[5]);
          const name = new BodyReader(message, 6).cstring();
          if (what === 'S') this.#statements.delete(name);
          else this.#portals.delete(name);
          return message;
        }
      case 0x53 /* S */:
        // Outside BEGIN, everything up to a Sync is one implicit transaction.
        if (!this.#block) this.#resetTransaction();
        if (this.#commitRefusedInBatch) {
          this.#commitRefusedInBatch = false;
          return this.#thenRollBack(message);
        }
        this.#groups.push('client');
        return message;
      default:
        return message;
    }
  }

  /**
   * `message` (a Query or Sync whose batch failed on a doomed COMMIT), then a ROLLBACK of the
   * server's failed transaction: the client hears its ReadyForQuery as idle, as after a DSQL
   * COMMIT that failed, and never hears the ROLLBACK.
   */
  #thenRollBack(message: Buffer): Buffer {
    this.#groups.push('client-idle', 'drop');
    this.#block = false;
    this.#resetTransaction();
    return Buffer.concat([message, queryMessage('ROLLBACK')]);
  }

  #query(sql: string): Buffer {
    const statements = splitStatements(sql);
    if (statements.length === 0) {
      this.#groups.push('client');
      return queryMessage(sql);
    }
    const classified = statements.map(classify);
    if (this.#doomed && classified.some((c) => c.commit)) {
      return this.#thenRollBack(queryMessage(this.#refuseDoomedCommit()));
    }
    this.#groups.push('client');
    // Several statements in one Query run as one implicit transaction.
    const implicitBlock = statements.length > 1;
    const saved = { block: this.#block, kinds: { ...this.#kinds } };
    let rewritten = false;
    const texts: string[] = [];
    for (const [i, statement] of statements.entries()) {
      const c = classified[i];
      const refusal = c.refusal ?? this.#run(c, implicitBlock);
      if (refusal) {
        // Nothing of this Query runs; the server's answer to the marker sets the state.
        this.#block = saved.block;
        this.#kinds = saved.kinds;
        return queryMessage(this.#refuse(refusal));
      }
      if (c.rewritten !== undefined) rewritten = true;
      texts.push(c.rewritten ?? statement.text);
    }
    if (!this.#block) this.#resetTransaction();
    return rewritten ? queryMessage(texts.join(';\n')) : queryMessage(sql);
  }

  #parse(message: Buffer): Buffer {
    const body = new BodyReader(message);
    const name = body.cstring();
    const sql = body.cstring();
    const types = body.rest();
    const statements = splitStatements(sql);
    // The extended protocol carries one statement (PostgreSQL refuses more itself).
    const c: Classified = statements.length === 1 ? classify(statements[0]) : { kind: 'other' };
    this.#statements.set(name, c);
    if (c.refusal) return parseMessage(name, this.#refuse(c.refusal));
    if (c.rewritten === undefined) return message;
    return parseMessage(name, c.rewritten, types);
  }

  /** A server message, as it goes to the client; undefined: the client must not see it. */
  fromServer(message: Buffer): Buffer | undefined {
    const group = this.#groups[0];
    if (message[0] === 0x4b /* K: BackendKeyData */ && message.length >= 9) this.pid = message.readInt32BE(5);
    if (group === 'drop') {
      if (message[0] === 0x5a) this.#groups.shift();
      return undefined;
    }
    if (message[0] === 0x5a /* Z */) {
      if (group !== undefined) this.#groups.shift();
      const idle = group === 'client-idle';
      // Only the answer to the last thing the client sent tells where its session stands now.
      if (!this.#groups.some((g) => g !== 'drop')) {
        const status = idle ? 'I' : String.fromCharCode(message[5]);
        this.#status = status;
        this.#block = status !== 'I';
        if (status === 'I') {
          this.#resetTransaction();
          this.#doomed = false;
        }
      }
      return idle ? readyForQuery('I') : message;
    }
    if (message[0] !== 0x45 /* E */) return message;
    const fields = errorFields(message);
    const code = fields.get('C') ?? '';
    const marker = REFUSAL_IN_ERROR.exec(fields.get('M') ?? '');
    const refusal = marker && this.#refusals.get(Number(marker[1]));
    if (marker && refusal) {
      this.#refusals.delete(Number(marker[1]));
      return errorResponse(refusal);
    }
    if (CONFLICT_CODES.has(code) && fields.get('S') === 'ERROR') {
      this.hooks.counts.conflicts += 1;
      return errorResponse({ code: '40001', message: this.#lastKind === 'ddl' ? OC001 : OC000 });
    }
    return message;
  }
}

/** PostgreSQL's answer to an error nothing expected: FATAL XX000 (internal_error), then the end. */
export const INTERNAL_ERROR: DsqlError = { code: 'XX000', message: 'internal error' };

/**
 * What the front answers an error it did not expect, in a session: PostgreSQL's FATAL XX000 to the
 * client, the end of both connections, a line in the log. The process and every other session go on.
 */
export function internalErrorEnds(
  client: net.Socket,
  server: net.Socket,
  log?: (line: string) => void,
): (error: unknown) => void {
  return (error) => {
    log?.(
      `[dsql-front] internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    if (!client.destroyed) client.end(errorResponse(INTERNAL_ERROR, 'FATAL'));
    server.destroy();
  };
}

/**
 * Relays typed messages from `from` to `to`, each through `map`, with backpressure. A message
 * `map` throws on is the session's end, never the process's: `onError` answers the client.
 */
export function relayMessages(
  from: net.Socket,
  to: net.Socket,
  map: (message: Buffer) => Buffer | undefined,
  onError: (error: unknown) => void,
  first?: Buffer,
): void {
  const reader = new MessageReader();
  const forward = (chunk: Buffer): void => {
    reader.push(chunk);
    const out: Buffer[] = [];
    for (;;) {
      let message: Buffer | undefined;
      try {
        message = reader.typed();
      } catch {
        from.destroy();
        to.destroy();
        return;
      }
      if (message === undefined) break;
      let mapped: Buffer | undefined;
      try {
        mapped = map(message);
      } catch (error) {
        from.off('data', forward);
        onError(error);
        return;
      }
      if (mapped) out.push(mapped);
    }
    if (out.length > 0 && !to.write(out.length === 1 ? out[0] : Buffer.concat(out))) from.pause();
  };
  to.on('drain', () => from.resume());
  from.on('data', forward);
  if (first && first.length > 0) forward(first);
}
export async function startDsqlFront(opts: DsqlFrontOptions): Promise<DsqlFront> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let refused = 0;
  const counts = { statementsRefused: 0, conflicts: 0 };
  const live = new Set<Session>();
  // The front's own view of the engine (who blocks whom), as the superuser over the socket.
  let control: Promise<pg.Client> | undefined;
  const controlClient = (): Promise<pg.Client> => {
    control ??= (async () => {
      const client = new pg.Client({
        host: dirname(opts.backendSocket),
        port: Number(opts.backendSocket.split('.').pop()),
        user: SUPERUSER,
        database: 'postgres',
      });
      const forget = (): void => {
        control = undefined;
      };
      client.on('error', forget);
      client.on('end', forget);
      try {
        await client.connect();
      } catch (error) {
        forget();
        throw error;
      }
      return client;
    })();
    return control;
  };
  /**
   * A write outside a transaction commits as soon as it runs, so in DSQL it wins against any
   * open transaction it conflicts with. Here it would wait on that transaction's row lock: while
   * it waits, the holders that sit idle in their transaction are doomed (their locks released,
   * their COMMIT to fail), and the write goes on. Only armed while some session has a
   * transaction open, which the lab's own functions never do.
   */
  const watchWrite = (session: Session, attempt = 0): void => {
    if (attempt === 0 && ![...live].some((s) => s !== session && s.inTransaction())) return;
    const timer = setTimeout(async () => {
      if (!session.busy() || attempt >= BLOCK_POLLS) return;
      try {
        const client = await controlClient();
        const out = await client.query<{ pids: number[] }>('SELECT pg_blocking_pids($1) AS pids', [
          session.pid,
        ]);
        for (const pid of out.rows[0]?.pids ?? []) {
          for (const holder of live) if (holder.pid === pid && holder.idleInTransaction()) holder.doom();
        }
      } catch {
        // The engine is restarting: the write meets its lock timeout instead.
      }
      watchWrite(session, attempt + 1);
    }, BLOCK_POLL_MS);
    timer.unref();
  };
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
  };

  const handle = (client: net.Socket): void => {
    accepted += 1;
    track(client);
    client.setNoDelay(true);
    const reader = new MessageReader();
    let stage: 'startup' | 'password' | 'relay' = 'startup';
    let params = new Map<string, string>();
    const fail = (sqlstate: string, message: string, hint?: string): void => {
      stage = 'relay';
      client.off('data', onData);
      client.end(errorResponse({ code: sqlstate, message, hint }, 'FATAL'));
    };

    const authenticate = async (password: string): Promise<void> => {
      const user = params.get('user') ?? '';
      const action = user === 'admin' ? 'DbConnectAdmin' : 'DbConnect';
      const verdict = await verifyDsqlToken(
        password,
        { host: opts.expectedHost, action },
        signingKeyOf(password, opts.credentials),
      );
      if (!verdict.ok) {
        refused += 1;
        opts.log?.(`[dsql-front] refused ${user}: ${verdict.reason}`);
        // DSQL's refusal: FATAL 08006 "unable to accept connection, access denied", the reason
        // in the HINT (for a token of the wrong action, DSQL's own words).
        const tokenAction = new URLSearchParams(password.slice(password.indexOf('/?') + 2)).get('Action');
        const hint =
          tokenAction && tokenAction !== action
            ? `Wrong user to action mapping. user: ${user}, action: ${tokenAction}`
            : verdict.reason;
        fail('08006', 'unable to accept connection, access denied', hint);
        return;
      }
      // DSQL has one database; PostgreSQL's default is the user's name, which is not it.
      const database = params.get('database') || user;
      if (database !== DSQL_DATABASE) {
        fail('3D000', `database "${database}" does not exist`);
        return;
      }
      // The client may have reset while its token was checked: a backend now would outlive it.
      if (client.destroyed) return;
      const server = net.connect({ path: opts.backendSocket });
      track(server);
      let connected = false;
      server.once('error', (error) => {
        // The server is down (a restart, a kill): what DSQL answers while it cannot serve.
        if (!connected) fail('57P03', `the database is not accepting connections: ${error.message}`);
      });
      server.once('connect', () => {
        try {
          startSession();
        } catch (error) {
          opts.log?.(`[dsql-front] internal error: ${(error as Error).stack ?? error}`);
          fail(INTERNAL_ERROR.code, INTERNAL_ERROR.message);
          server.destroy();
        }
      });
      const startSession = (): void => {
        connected = true;
        // ... or while the backend connection was being made: its 'close' has been and gone.
        if (client.destroyed) {
          server.destroy();
          return;
        }
        server.write(startupMessage(params));
        const session = new Session({
          counts,
          toServer: (m) => server.write(m),
          onAutocommitWrite: (s) => watchWrite(s),
        });
        live.add(session);
        client.once('close', () => live.delete(session));
        const internal = internalErrorEnds(client, server, opts.log);
        relayMessages(server, client, (m) => session.fromServer(m), internal);
        relayMessages(client, server, (m) => session.fromClient(m), internal, reader.rest());
        client.once('close', () => endThenDestroy(server));
        server.once('close', (hadError) => (hadError ? client.destroy() : endThenDestroy(client)));
        client.resume();
      };
    };

    const onData = (chunk: Buffer): void => {
      reader.push(chunk);
      try {
        while (stage === 'startup') {
          const message = reader.untyped(MAX_HANDSHAKE_MESSAGE);
          if (message === undefined) return;
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) {
            // TLS belongs to the network model in front: here it is 'N', and the client goes on.
            client.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST_CODE) {
            const server = net.connect({ path: opts.backendSocket }, () => server.end(message));
            track(server);
            client.end();
            return;
          }
          if (code !== PROTOCOL_3) {
            fail('08P01', `unsupported frontend protocol ${code >> 16}.${code & 0xffff}`);
            return;
          }
          params = startupParameters(message);
          if (!params.get('user')) {
            fail('28000', 'no user in the startup message');
            return;
          }
          stage = 'password';
          client.write(authenticationCleartextPassword());
        }
        if (stage === 'password') {
          const message = reader.typed(MAX_HANDSHAKE_MESSAGE);
          if (message === undefined) return;
          if (message[0] !== 0x70 /* p */) {
            fail('08P01', 'expected a password message');
            return;
          }
          stage = 'relay';
          client.off('data', onData);
          client.pause();
          const password = message.subarray(5, message.length - 1).toString('utf8');
          authenticate(password).catch((error: unknown) =>
            fail('XX000', `authentication failed: ${(error as Error).message}`),
          );
        }
      } catch (error) {
        fail('08P01', (error as Error).message);
      }
    };
    client.on('data', onData);
  };

  const server = net.createServer({ noDelay: true }, (client) => {
    try {
      handle(client);
    } catch (error) {
      opts.log?.(`[dsql-front] internal error on a new connection: ${(error as Error).stack ?? error}`);
      client.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    stats: () => ({ accepted, refused, ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        control?.then((c) => c.end()).catch(() => {});
      }),
  };
}
