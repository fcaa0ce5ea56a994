/**
 * PostgreSQL's frontend/backend protocol (version 3.0), the parts the lab speaks: the codes of
 * the untyped messages a client sends first, builders for the messages the lab writes, and
 * readers for the ones it takes apart. One module for every side: the DSQL front (a server to
 * the client, a client to PostgreSQL), the network model (SSLRequest, the refusal of a client
 * without TLS) and the Lambda's frontend message counter. It imports nothing and its top level
 * only declares, so a handler's bundle keeps just the parts it uses.
 *
 * Framing: until its StartupMessage a client sends untyped messages (int32 length, itself
 * included, then int32 code); every message after it, and every backend message, is typed
 * (one type byte, then int32 length, itself included but not the type byte).
 */

/** The StartupMessage's code: protocol 3.0. */
export const PROTOCOL_3 = 196608;
export const SSL_REQUEST_CODE = 80877103;
export const GSSENC_REQUEST_CODE = 80877104;
export const CANCEL_REQUEST_CODE = 80877102;

/** A message's bytes as a NUL-terminated string. */
export const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

/** An untyped message: length, code, body. */
export function untypedMessage(code: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(body.length + 8, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
}

/** A typed message: type byte, length, body. */
export function typedMessage(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** SSLRequest: int32 length 8, int32 code 80877103. */
export const SSL_REQUEST: Buffer = /* @__PURE__ */ untypedMessage(SSL_REQUEST_CODE);

/** StartupMessage: protocol 3.0 and the parameters (user, database, ...) as name/value pairs. */
export function startupMessage(params: ReadonlyMap<string, string>): Buffer {
  const body = Buffer.from(`${[...params].map(([k, v]) => `${k}\0${v}\0`).join('')}\0`, 'utf8');
  return untypedMessage(PROTOCOL_3, body);
}

/** A StartupMessage's parameters. */
export function startupParameters(message: Buffer): Map<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) out.set(parts[i], parts[i + 1]);
  return out;
}

/** AuthenticationCleartextPassword: the server asks for the password as it is. */
export const authenticationCleartextPassword = (): Buffer => typedMessage('R', Buffer.from([0, 0, 0, 3]));

/** Query: one or more statements in the simple protocol. */
export const queryMessage = (sql: string): Buffer => typedMessage('Q', cstring(sql));

/** Parse: statement name, query, parameter types (none by default). */
export function parseMessage(name: string, sql: string, types: Buffer = Buffer.from([0, 0])): Buffer {
  return typedMessage('P', Buffer.concat([cstring(name), cstring(sql), types]));
}

/** ReadyForQuery: the backend's transaction status ('I' idle, 'T' in a block, 'E' failed block). */
export const readyForQuery = (status: 'I' | 'T' | 'E'): Buffer =>
  typedMessage('Z', Buffer.from(status, 'latin1'));

export interface ErrorFields {
  /** SQLSTATE */
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
}

/** ErrorResponse: severity (S and V), SQLSTATE (C), message (M) and a hint (H) when given. */
export function errorResponse(error: ErrorFields, severity = 'ERROR'): Buffer {
  const hint = error.hint === undefined ? '' : `H${error.hint}\0`;
  const fields = `S${severity}\0V${severity}\0C${error.code}\0M${error.message}\0${hint}`;
  return typedMessage('E', Buffer.concat([Buffer.from(fields, 'utf8'), Buffer.from([0])]));
}

/** An ErrorResponse's (or NoticeResponse's) fields, by their one-letter type. */
export function errorFields(message: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 5;
  while (at < message.length && message[at] !== 0) {
    const type = String.fromCharCode(message[at]);
    const end = message.indexOf(0, at + 1);
    if (end === -1) break;
    out.set(type, message.subarray(at + 1, end).toString('utf8'));
    at = end + 1;
  }
  return out;
}

/** Reads whole messages from a byte stream whose chunks may split anywhere. */
export class MessageReader {
  #buffer: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
  }
  /** One untyped message (length + code + body), or undefined until it is whole. */
  untyped(max = Number.POSITIVE_INFINITY): Buffer | undefined {
    if (this.#buffer.length < 4) return undefined;
    const length = this.#buffer.readInt32BE(0);
    if (length < 8 || length > max) throw new Error(`bad startup length ${length}`);
    return this.#take(length);
  }
  /** One typed message (type byte + length + body), or undefined until it is whole. */
  typed(max = Number.POSITIVE_INFINITY): Buffer | undefined {
    if (this.#buffer.length < 5) return undefined;
    const length = this.#buffer.readInt32BE(1);
    if (length < 4 || length > max) throw new Error(`bad message length ${length}`);
    return this.#take(length + 1);
  }
  /** What is left unread, which the reader forgets. */
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

/** Reads NUL-terminated strings from a typed message, from its body's start (or `at`). */
export class BodyReader {
  #at: number;
  constructor(
    private readonly message: Buffer,
    at = 5,
  ) {
    this.#at = at;
  }
  cstring(): string {
    const end = this.message.indexOf(0, this.#at);
    const out = this.message.subarray(this.#at, end === -1 ? this.message.length : end).toString('utf8');
    this.#at = end === -1 ? this.message.length : end + 1;
    return out;
  }
  rest(): Buffer {
    return this.message.subarray(this.#at);
  }
}
