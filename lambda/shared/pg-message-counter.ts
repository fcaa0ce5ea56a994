/**
 * Counts the PostgreSQL frontend messages a `pg` client writes, at the protocol level: every
 * message on the wire, whether pg sends it through a query or by itself. The timing block's
 * `dbRequests` for the dsql target is the delta of this count over a call; `dbRoundTrips` is
 * the delta of the messages after which the client waits for the server's answer.
 *
 * What is counted: SSLRequest (the 8-byte request before TLS), StartupMessage, PasswordMessage
 * (the IAM token), and every typed message after it: Parse, Bind, Describe, Execute, Sync for a
 * parameterized query (pg sends the five for each one), Query for a plain one, Terminate when a
 * connection is closed. Not counted: TLS records of their own (handshake, alerts), TCP segments.
 *
 * How: pg writes every message to `connection.stream`, and replaces that stream with the TLS
 * socket after the server's 'S'. The counter watches that property, wraps the write of each
 * stream assigned to it, and frames the plaintext it writes: untyped messages (length, code)
 * until the StartupMessage, typed ones (type byte, length) after it.
 *
 * Round trips: pg sends a parameterized query's five messages in one flight and waits once, at
 * Sync. The messages that end a flight are SSLRequest/GSSENCRequest (the server answers one
 * byte), StartupMessage and PasswordMessage (authentication), Sync, Query, Flush and
 * FunctionCall. Terminate and CancelRequest wait for nothing.
 */
import type { Client } from 'pg';
import { CANCEL_REQUEST_CODE, GSSENC_REQUEST_CODE, SSL_REQUEST_CODE } from '../../core/pg-wire';

/** Typed messages the client waits after: PasswordMessage, Sync, Query, Flush, FunctionCall. */
const FLIGHT_ENDS = new Set(['p', 'S', 'Q', 'H', 'F'].map((c) => c.charCodeAt(0)));

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;
interface WritableStream {
  write: Write;
  connect?: (...args: unknown[]) => unknown;
}
interface HasStream {
  stream: WritableStream;
}

/** Frames a frontend byte stream into messages and counts them; chunks may split anywhere. */
export class FrontendMessageFramer {
  #messages = 0;
  #roundTrips = 0;
  /** Until the StartupMessage, messages have no type byte. */
  #untyped = true;
  /** Bytes of the current message's header read so far. */
  #header = Buffer.alloc(0);
  /** Bytes of the current message's body still to skip. */
  #skip = 0;

  get messages(): number {
    return this.#messages;
  }

  /** Messages after which the client waits for the server: one per round trip. */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#skip > 0) {
        const n = Math.min(this.#skip, chunk.length - at);
        this.#skip -= n;
        at += n;
        continue;
      }
      // Untyped: int32 length (itself included) + int32 code. Typed: byte type + int32 length.
      const headerLength = this.#untyped ? 8 : 5;
      const need = headerLength - this.#header.length;
      const take = chunk.subarray(at, at + need);
      this.#header = Buffer.concat([this.#header, take]);
      at += take.length;
      if (this.#header.length < headerLength) return;
      this.#messages += 1;
      if (this.#untyped) {
        const length = this.#header.readInt32BE(0);
        const code = this.#header.readInt32BE(4);
        this.#skip = Math.max(0, length - 8);
        if (code !== CANCEL_REQUEST_CODE) this.#roundTrips += 1;
        if (code !== SSL_REQUEST_CODE && code !== GSSENC_REQUEST_CODE && code !== CANCEL_REQUEST_CODE) {
          this.#untyped = false;
        }
      } else {
        this.#skip = Math.max(0, this.#header.readInt32BE(1) - 4);
        if (FLIGHT_ENDS.has(this.#header[0])) this.#roundTrips += 1;
      }
      this.#header = Buffer.alloc(0);
    }
  }
}

/**
 * Makes `onMessages(n, roundTrips)` hear of every frontend message the client writes from now
 * on, and of the round trips they end. Call it on a new client, before connect().
 */
export function countFrontendMessages(
  client: Client,
  onMessages: (n: number, roundTrips: number) => void,
): void {
  const connection = client.connection as unknown as HasStream;
  const framer = new FrontendMessageFramer();
  let current: WritableStream;
  const wrapWrite = (stream: WritableStream): void => {
    const write = stream.write.bind(stream) as Write;
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      // Only the stream pg currently talks through: the raw socket below TLS carries ciphertext.
      if (stream === current && chunk instanceof Uint8Array) {
        const before = framer.messages;
        const tripsBefore = framer.roundTrips;
        framer.push(chunk);
        if (framer.messages > before) onMessages(framer.messages - before, framer.roundTrips - tripsBefore);
      }
      return write(chunk, ...rest);
    };
  };
  const wrap = (stream: WritableStream): WritableStream => {
    wrapWrite(stream);
    const connect = stream.connect?.bind(stream);
    if (connect) {
      // net.Socket#connect puts the prototype's write back on the instance: wrap it again.
      stream.connect = (...args: unknown[]) => {
        const out = connect(...args);
        wrapWrite(stream);
        return out;
      };
    }
    return stream;
  };
  current = wrap(connection.stream);
  Object.defineProperty(connection, 'stream', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (stream: WritableStream) => {
      current = stream;
      wrap(stream);
    },
  });
}
