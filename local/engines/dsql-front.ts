/**
 * What makes a local PostgreSQL answer as Aurora DSQL does at the door: a PostgreSQL-protocol
 * front between the network model (which has already terminated TLS) and the server.
 *
 *   client --TLS--> [network model] --plaintext--> [this front] --> postgres (trust on 127.0.0.1)
 *
 * - Authentication: PostgreSQL cannot check a SigV4 token, so the front answers the client's
 *   StartupMessage itself with AuthenticationCleartextPassword (what DSQL asks for), reads the
 *   PasswordMessage, and verifies the IAM token (local/auth/dsql-token.ts): DbConnectAdmin for
 *   `admin`, DbConnect for any other role, host = the endpoint the client used. A refused token
 *   gets a FATAL ErrorResponse the client surfaces, and the connection ends. The round trip is
 *   real: the client waits for the request and the server's answer, as against DSQL.
 * - Only then it opens the server connection with the client's own startup parameters, and
 *   relays everything both ways: AuthenticationOk, ParameterStatus, ReadyForQuery and every
 *   result come from PostgreSQL itself.
 * - DSQL's SQL dialect, where PostgreSQL lacks it, in simple Query messages only (the schema
 *   custom resource sends these): `CREATE INDEX ASYNC` builds the index at once (locally there
 *   is no job to wait for); `AWS IAM GRANT role TO 'arn'` and `AWS IAM REVOKE role FROM 'arn'`
 *   edit the local sys.iam_pg_role_mappings table (postgres.ts makes it). Locally every
 *   function signs with the lab's one key, so that mapping is recorded, not enforced.
 */
import net from 'node:net';
import type { AwsCredentialIdentity } from '@smithy/types';
import { verifyDsqlToken } from '../auth/dsql-token';
import { endThenDestroy } from '../network/delay-layer';
import { pgFatal } from '../network/network-model';

const SSL_REQUEST_CODE = 80877103;
const GSSENC_REQUEST_CODE = 80877104;
const CANCEL_REQUEST_CODE = 80877102;
const PROTOCOL_3 = 196608;
/** A startup or password message larger than this is not one. */
const MAX_HANDSHAKE_MESSAGE = 64 * 1024;

export interface DsqlFrontOptions {
  /** PostgreSQL on 127.0.0.1 (trust auth). */
  readonly backendPort: number;
  /** The endpoint name clients connect to; tokens must be signed for it. */
  readonly expectedHost: string;
  /** The one key tokens are signed with (the functions' local credentials). */
  readonly credentials: AwsCredentialIdentity;
  /** @default 0 (any free port) */
  readonly port?: number;
  readonly log?: (line: string) => void;
}

export interface DsqlFrontStats {
  readonly accepted: number;
  /** Connections refused at authentication. */
  readonly refused: number;
}

export interface DsqlFront {
  readonly port: number;
  stats(): DsqlFrontStats;
  close(): Promise<void>;
}

/** Reads whole messages from a socket: untyped (length first) until the startup, typed after. */
class MessageReader {
  #buffer: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
  }
  /** One untyped message (length + body), or undefined until it is whole. */
  untyped(): Buffer | undefined {
    if (this.#buffer.length < 4) return undefined;
    const length = this.#buffer.readInt32BE(0);
    if (length < 8 || length > MAX_HANDSHAKE_MESSAGE) throw new Error(`bad startup length ${length}`);
    return this.#take(length);
  }
  /** One typed message (type byte + length + body), or undefined until it is whole. */
  typed(max = Number.POSITIVE_INFINITY): Buffer | undefined {
    if (this.#buffer.length < 5) return undefined;
    const length = this.#buffer.readInt32BE(1);
    if (length < 4 || length > max) throw new Error(`bad message length ${length}`);
    return this.#take(length + 1);
  }
  rest(): Buffer {
    const out = this.#buffer;
    this.#buffer = Buffer.alloc(0);
    return out;
  }
  #take(n: number): Buffer | undefined {
    if (this.#buffer.length < n) return undefined;
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }
}

function startupParameters(message: Buffer): Map<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) out.set(parts[i], parts[i + 1]);
  return out;
}

function startupMessage(params: Map<string, string>): Buffer {
  const body = Buffer.from(`${[...params].map(([k, v]) => `${k}\0${v}\0`).join('')}\0`, 'utf8');
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(PROTOCOL_3, 4);
  return Buffer.concat([head, body]);
}

const AUTH_CLEARTEXT = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]);

function queryMessage(sql: string): Buffer {
  const body = Buffer.from(`${sql}\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('Q', 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const ROLE = '([a-z_][a-z0-9_]{0,62})';
const ARN = "'(arn:[^']+)'";
const GRANT = new RegExp(`^\\s*AWS\\s+IAM\\s+GRANT\\s+${ROLE}\\s+TO\\s+${ARN}\\s*;?\\s*$`, 'i');
const REVOKE = new RegExp(`^\\s*AWS\\s+IAM\\s+REVOKE\\s+${ROLE}\\s+FROM\\s+${ARN}\\s*;?\\s*$`, 'i');
const INDEX_ASYNC = /^(\s*CREATE\s+(?:UNIQUE\s+)?INDEX)\s+ASYNC\b/i;

/** DSQL statements PostgreSQL lacks, as PostgreSQL statements; anything else unchanged. */
export function dsqlDialect(sql: string): string {
  const grant = GRANT.exec(sql);
  if (grant) {
    // NOT NULL on pg_role_name: a role that does not exist fails the statement, as in DSQL.
    return `INSERT INTO sys.iam_pg_role_mappings (arn, pg_role_name) VALUES ('${grant[2]}', (SELECT rolname::text FROM pg_roles WHERE rolname = '${grant[1]}'))`;
  }
  const revoke = REVOKE.exec(sql);
  if (revoke) {
    return `DELETE FROM sys.iam_pg_role_mappings WHERE pg_role_name = '${revoke[1]}' AND arn = '${revoke[2]}'`;
  }
  return sql.replace(INDEX_ASYNC, '$1');
}

/** Relays client -> server, rewriting simple Query messages through dsqlDialect. */
function relayRewriting(client: net.Socket, server: net.Socket, first: Buffer): void {
  const reader = new MessageReader();
  const forward = (chunk: Buffer): void => {
    reader.push(chunk);
    for (;;) {
      let message: Buffer | undefined;
      try {
        message = reader.typed();
      } catch {
        client.destroy();
        return;
      }
      if (message === undefined) return;
      if (message[0] === 0x51 /* Q */) {
        const sql = message.subarray(5, message.length - 1).toString('utf8');
        const rewritten = dsqlDialect(sql);
        if (rewritten !== sql) message = queryMessage(rewritten);
      }
      if (!server.write(message)) client.pause();
    }
  };
  server.on('drain', () => client.resume());
  client.on('data', forward);
  if (first.length > 0) forward(first);
}

export async function startDsqlFront(opts: DsqlFrontOptions): Promise<DsqlFront> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let refused = 0;
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
    const fail = (sqlstate: string, message: string): void => {
      stage = 'relay';
      client.off('data', onData);
      client.end(pgFatal(sqlstate, message));
    };

    const authenticate = async (password: string): Promise<void> => {
      const user = params.get('user') ?? '';
      const action = user === 'admin' ? 'DbConnectAdmin' : 'DbConnect';
      const verdict = await verifyDsqlToken(password, { host: opts.expectedHost, action }, opts.credentials);
      if (!verdict.ok) {
        refused += 1;
        opts.log?.(`[dsql-front] refused ${user}: ${verdict.reason}`);
        // DSQL names no reason to the client beyond this; the local log has it.
        fail('28000', `access denied for role "${user}": ${verdict.reason}`);
        return;
      }
      const server = net.connect({ host: '127.0.0.1', port: opts.backendPort });
      track(server);
      server.setNoDelay(true);
      let connected = false;
      server.once('error', (error) => {
        // The server is down (a restart, a kill): what DSQL answers while it cannot serve.
        if (!connected) fail('57P03', `the database is not accepting connections: ${error.message}`);
      });
      server.once('connect', () => {
        connected = true;
        server.write(startupMessage(params));
        server.pipe(client);
        relayRewriting(client, server, reader.rest());
        client.once('close', () => endThenDestroy(server));
        server.once('close', (hadError) => (hadError ? client.destroy() : endThenDestroy(client)));
        client.resume();
      });
    };

    const onData = (chunk: Buffer): void => {
      reader.push(chunk);
      try {
        while (stage === 'startup') {
          const message = reader.untyped();
          if (message === undefined) return;
          const code = message.readInt32BE(4);
          if (code === SSL_REQUEST_CODE || code === GSSENC_REQUEST_CODE) {
            // TLS belongs to the network model in front: here it is 'N', and the client goes on.
            client.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST_CODE) {
            const server = net.connect({ host: '127.0.0.1', port: opts.backendPort }, () =>
              server.end(message),
            );
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
          client.write(AUTH_CLEARTEXT);
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

  const server = net.createServer({ noDelay: true }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    stats: () => ({ accepted, refused }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
