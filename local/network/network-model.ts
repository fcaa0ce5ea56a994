/**
 * The network model for local runs: what a connection costs between a function and its
 * database in a cloud region, rebuilt in user space in front of a local engine.
 *
 *   client --TLS--> [delay layer, public port] --> [TLS termination, internal port] --> engine (HTTP)
 *
 * - Every chunk is delayed rttMs/2 in each direction, in order, so each request costs one
 *   round trip. The delay sits below TLS, so the TLS handshake's round trip is paid too.
 * - A new connection's first bytes wait one extra rttMs: the TCP handshake, which user
 *   space cannot delay (the local connect() completes at once, so a connect timeout never
 *   sees it).
 * - TLS 1.2 and 1.3 are both accepted, as AWS endpoints accept them (TLS_VERSIONS); Node's
 *   clients negotiate 1.3. So a request on a new connection costs 3 round trips (TCP, TLS 1.3,
 *   request) plus the handshake's real CPU, 4 for a client pinned to TLS 1.2 (its full handshake
 *   takes two); on a kept-alive connection it costs 1.
 * - TLS session resumption stays on, as Node does it: the server issues TLS 1.3 tickets and
 *   https.Agent caches and offers them. A resumed TLS 1.3 handshake still takes its round
 *   trip (Node sends no 0-RTT data), so resumption saves certificate work, never a round
 *   trip; turning it off would charge CPU the client does not spend.
 * - rttMs is a calibration, not a ping: it stands for everything a round trip costs a
 *   function in the cloud (see DEFAULT_RTT_MS). Timers fire late by a fraction of a ms per
 *   hop (`npm run bench -- --only-overhead` prints the relay's floor).
 * - Clients verify the certificate against the local CA (NODE_EXTRA_CA_CERTS); nothing
 *   disables verification.
 * - With `startTls: 'postgres'` (the dsql target) the model speaks PostgreSQL's way into TLS:
 *   the client's 8-byte SSLRequest is answered 'S' in clear, then the TLS handshake runs on
 *   the same connection and plaintext is relayed as before. That exchange pays its own round
 *   trip, as it does against DSQL. A client that starts without SSLRequest is refused with a
 *   PostgreSQL ErrorResponse: DSQL requires TLS.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import tls from 'node:tls';
import { errorResponse, SSL_REQUEST } from '../../core/pg-wire';
import {
  type ConnectionWindow,
  DelayedDirection,
  type DelayLayer,
  endThenDestroy,
  startDelayLayer,
} from './delay-layer';
import { type ServiceTimeSpec, serviceTimeSampler } from './service-time';

/**
 * Calibrated with the real SDK (GetItem, 200 sequential calls per variant, dynalite behind
 * the model, 2-core machine): p50 ~12 ms with keep-alive, ~34 ms without, 2.8-2.9x; the
 * cloud measured 10 ms vs 33 ms. The ratio stays ~3x from 4 to 12 ms (TLS 1.3 makes a new
 * connection 3 round trips), so this value also matches the cloud's absolute numbers.
 */
export const DEFAULT_RTT_MS = 8;

export type LoopbackAddress = '127.0.0.1' | '::1';

export interface NetworkModelOptions {
  /** The engine's plain-HTTP address: 127.0.0.1, ::1 or localhost. */
  readonly upstreamHost: string;
  readonly upstreamPort: number;
  /** Round-trip time charged on every exchange. @default DEFAULT_RTT_MS */
  readonly rttMs?: number;
  /** Server certificate and key, e.g. from ensureCertificates(). */
  readonly tls: { readonly certPath: string; readonly keyPath: string };
  /** @default '127.0.0.1' */
  readonly host?: LoopbackAddress;
  /** 0 picks an ephemeral port. @default 0 */
  readonly port?: number;
  /**
   * How a connection starts TLS: at once (HTTPS, rediss) or after PostgreSQL's SSLRequest.
   * @default 'immediate'
   */
  readonly startTls?: StartTls;
  /**
   * The service's own time per request/response exchange, drawn per exchange. The engine's own
   * time is part of it: a response is held until the drawn time since its request arrived,
   * never delayed on top. @default none: the engine's own time only
   */
  readonly serviceTime?: ServiceTimeSpec | null;
  /** Seeds the service-time draws, so a run can be repeated. @default 1 */
  readonly seed?: number;
}

export type StartTls = 'immediate' | 'postgres';

export type { ConnectionWindow } from './delay-layer';

/** The TLS versions every front accepts: AWS endpoints take TLS 1.2 and 1.3 (1.2 at least). */
export const TLS_VERSIONS = { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' } as const;

/**
 * Reads the first 8 bytes of a PostgreSQL connection: an SSLRequest is answered 'S' and the
 * socket handed to `secure`; anything else is refused, as DSQL refuses a client without TLS.
 */
function acceptSslRequest(socket: net.Socket, secure: (socket: net.Socket) => void): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    if (head.length < SSL_REQUEST.length) return;
    socket.off('data', onData);
    socket.pause();
    if (!head.subarray(0, 8).equals(SSL_REQUEST)) {
      socket.end(
        errorResponse(
          { code: '28000', message: 'TLS is required: send SSLRequest first (sslmode=require)' },
          'FATAL',
        ),
      );
      return;
    }
    // A client waits for 'S' before its ClientHello; anything already here belongs to TLS.
    if (head.length > 8) socket.unshift(head.subarray(8));
    socket.write('S');
    secure(socket);
  };
  socket.on('data', onData);
}

export interface NetworkModelStats {
  /** TCP connections accepted on the public port. */
  readonly connectionsAccepted: number;
  /** Of those, open now. */
  readonly connectionsOpen: number;
  /** Bytes (TLS records) delivered client -> engine side. */
  readonly bytesUp: number;
  /** Bytes (TLS records) delivered engine side -> client. */
  readonly bytesDown: number;
  /** Finished TLS handshakes by the version negotiated (`TLSv1.2`, `TLSv1.3`). */
  readonly handshakes: Readonly<Record<string, number>>;
}

export interface NetworkModel {
  /** https://127.0.0.1:PORT, the endpoint to give the SDK. */
  readonly url: string;
  readonly port: number;
  stats(): NetworkModelStats;
  /**
   * The connections open at the database through this model since the last mark: every
   * function's connection to the target passes here, so this is what the database holds.
   */
  connections(): ConnectionWindow;
  markConnections(): void;
  /** Stops listening and ends every socket the model opened. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** How long a half-closed client's connection waits for the engine to answer and close. */
const HALF_CLOSED_BOUND_MS = 30_000;

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * One connection's exchanges, seen in plaintext: client bytes after a response (or first) start
 * an exchange and draw its service time; the response's first bytes are held until that time
 * has passed since the request arrived; its later bytes follow in order. A protocol that sends
 * one request and waits for its answer (HTTP/1.1, RESP, PostgreSQL's extended query up to Sync)
 * is one exchange per request; bytes the server sends unasked are never held.
 */
export class ExchangeClock {
  #pending: { readonly startedAt: number; readonly serviceMs: number } | undefined;

  constructor(
    private readonly draw: () => number,
    // Injected by tests, which check the hold arithmetic without timing a loaded host.
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Client bytes arrived (not yet sent to the engine). */
  request = (): number => {
    this.#pending ??= { startedAt: this.now(), serviceMs: this.draw() };
    return 0;
  };

  /** Engine bytes arrived: how long to hold them. */
  response = (): number => {
    const p = this.#pending;
    if (!p) return 0;
    this.#pending = undefined;
    return Math.max(0, p.startedAt + p.serviceMs - this.now());
  };
}

/** Terminates TLS on an internal loopback port and relays plaintext to the engine. */
async function startTlsTermination(
  options: NetworkModelOptions,
  host: LoopbackAddress,
): Promise<{ port: number; handshakes: Record<string, number>; close(): Promise<void> }> {
  const [cert, key] = await Promise.all([readFile(options.tls.certPath), readFile(options.tls.keyPath)]);
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('error', () => {}); // surfaces as 'close', handled there
    socket.once('close', () => sockets.delete(socket));
  };

  // One stream of draws per model (per target): the same seed repeats a run's service times.
  const draw = options.serviceTime ? serviceTimeSampler(options.serviceTime, options.seed ?? 1) : undefined;
  // What each client negotiated: a client pinned to TLS 1.2 (an article's conditions) shows here.
  const handshakes: Record<string, number> = {};
  const relay = (secure: tls.TLSSocket): void => {
    const version = secure.getProtocol() ?? 'unknown';
    handshakes[version] = (handshakes[version] ?? 0) + 1;
    const engine = net.connect({
      host: options.upstreamHost,
      port: options.upstreamPort,
      allowHalfOpen: true,
    });
    engine.setNoDelay(true);
    track(secure);
    track(engine);
    // A client that half-closes still gets its answers (its FIN travels on to the engine, which
    // answers and closes); one whose engine never closes is let go after a bound, so no socket
    // waits forever for a dead peer.
    secure.once('end', () => {
      const bound = setTimeout(() => {
        secure.destroy();
        engine.destroy();
      }, HALF_CLOSED_BOUND_MS).unref();
      secure.once('close', () => clearTimeout(bound));
    });
    if (draw) {
      const clock = new ExchangeClock(draw);
      const up = new DelayedDirection(secure, engine, clock.request, 0, () => {});
      const down = new DelayedDirection(engine, secure, clock.response, 0, () => {});
      secure.once('close', () => {
        down.stop();
        up.closeAfterInFlight();
      });
      engine.once('close', (hadError) => {
        up.stop();
        if (hadError) secure.destroy();
        else down.closeAfterInFlight();
      });
      return;
    }
    secure.pipe(engine);
    engine.pipe(secure);
    secure.once('close', () => endThenDestroy(engine));
    engine.once('close', (hadError) => (hadError ? secure.destroy() : endThenDestroy(secure)));
  };

  let server: net.Server;
  if (options.startTls === 'postgres') {
    const secureContext = tls.createSecureContext({ cert, key, ...TLS_VERSIONS });
    server = net.createServer({ noDelay: true }, (socket) => {
      track(socket);
      acceptSslRequest(socket, (raw) => {
        const secure = new tls.TLSSocket(raw, { isServer: true, secureContext });
        secure.once('secure', () => relay(secure));
        secure.on('error', () => raw.destroy());
        raw.resume();
      });
    });
  } else {
    // Not half-open during the handshake, so a client that ends its side there gets this side
    // ended too; half-open once secure, as HTTPS and Redis servers are, so a request sent just
    // before the client's FIN is answered.
    const https = tls.createServer({ cert, key, ...TLS_VERSIONS, noDelay: true });
    https.on('connection', track); // raw sockets, so close() also reaches unfinished handshakes
    https.on('secureConnection', (secure: tls.TLSSocket) => {
      secure.allowHalfOpen = true;
      relay(secure);
    });
    server = https;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: (server.address() as AddressInfo).port,
    handshakes,
    close: async () => {
      const closed = closeServer(server);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Starts the model in front of a plain-HTTP engine; see the file comment for what it charges. */
export async function startNetworkModel(options: NetworkModelOptions): Promise<NetworkModel> {
  const host = options.host ?? '127.0.0.1';
  const rttMs = options.rttMs ?? DEFAULT_RTT_MS;
  if (!LOOPBACK.has(options.upstreamHost) || !LOOPBACK.has(host)) {
    throw new Error(
      `the network model only runs on loopback (host ${host}, upstream ${options.upstreamHost})`,
    );
  }
  if (!(Number.isFinite(rttMs) && rttMs >= 0)) throw new RangeError(`rttMs must be >= 0, got ${rttMs}`);

  const termination = await startTlsTermination(options, host);
  let delay: DelayLayer;
  try {
    delay = await startDelayLayer({
      host,
      port: options.port ?? 0,
      targetHost: host,
      targetPort: termination.port,
      oneWayMs: rttMs / 2,
      connectMs: rttMs,
    });
  } catch (error) {
    await termination.close();
    throw error;
  }

  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    url: `https://${urlHost}:${delay.port}`,
    port: delay.port,
    stats: () => ({ ...delay.stats(), handshakes: { ...termination.handshakes } }),
    connections: () => delay.connections(),
    markConnections: () => delay.markConnections(),
    close: () => {
      closing ??= Promise.all([delay.close(), termination.close()]).then(() => undefined);
      return closing;
    },
  };
}
