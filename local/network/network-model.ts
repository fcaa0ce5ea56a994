/**
 * The network model for local runs: what a connection costs between a function and its
 * database in a cloud region, rebuilt in user space in front of a local engine.
 *
 *   client --TLS--> [delay layer, public port] --> [TLS 1.3 termination, internal port] --> engine (HTTP)
 *
 * - Every chunk is delayed rttMs/2 in each direction, in order, so each request costs one
 *   round trip. The delay sits below TLS, so the TLS handshake's round trip is paid too.
 * - A new connection's first bytes wait one extra rttMs: the TCP handshake, which user
 *   space cannot delay (the local connect() completes at once, so a connect timeout never
 *   sees it).
 * - So a request on a new connection costs 3 round trips (TCP, TLS 1.3, request) plus the
 *   handshake's real CPU; on a kept-alive connection it costs 1.
 * - TLS session resumption stays on, as Node does it: the server issues TLS 1.3 tickets and
 *   https.Agent caches and offers them. A resumed TLS 1.3 handshake still takes its round
 *   trip (Node sends no 0-RTT data), so resumption saves certificate work (~1 ms here), never
 *   a round trip; turning it off would charge CPU the client does not spend.
 * - rttMs is a calibration, not a ping: it stands for everything a round trip costs a
 *   function in the cloud (see DEFAULT_RTT_MS). Timers add ~0.2-0.5 ms per hop.
 * - Clients verify the certificate against the local CA (NODE_EXTRA_CA_CERTS); nothing
 *   disables verification.
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { type DelayLayer, endThenDestroy, startDelayLayer } from './delay-layer';

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
}

export interface NetworkModelStats {
  /** TCP connections accepted on the public port. */
  readonly connectionsAccepted: number;
  /** Bytes (TLS records) delivered client -> engine side. */
  readonly bytesUp: number;
  /** Bytes (TLS records) delivered engine side -> client. */
  readonly bytesDown: number;
}

export interface NetworkModel {
  /** https://127.0.0.1:PORT, the endpoint to give the SDK. */
  readonly url: string;
  readonly port: number;
  stats(): NetworkModelStats;
  /** Stops listening and ends every socket the model opened. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Terminates TLS on an internal loopback port and relays plaintext to the engine. */
async function startTlsTermination(
  options: NetworkModelOptions,
  host: LoopbackAddress,
): Promise<{ port: number; close(): Promise<void> }> {
  const [cert, key] = await Promise.all([readFile(options.tls.certPath), readFile(options.tls.keyPath)]);
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('error', () => {}); // surfaces as 'close', handled there
    socket.once('close', () => sockets.delete(socket));
  };

  // Not half-open, like any HTTPS server: a client that ends its side (or drops during the
  // handshake) gets this side ended too, so no socket waits forever for a dead peer.
  const server = tls.createServer({ cert, key, minVersion: 'TLSv1.3', noDelay: true });
  server.on('connection', track); // raw sockets, so close() also reaches unfinished handshakes
  server.on('secureConnection', (secure: tls.TLSSocket) => {
    const engine = net.connect({
      host: options.upstreamHost,
      port: options.upstreamPort,
      allowHalfOpen: true,
    });
    engine.setNoDelay(true);
    track(secure);
    track(engine);
    secure.pipe(engine);
    engine.pipe(secure);
    secure.once('close', () => endThenDestroy(engine));
    engine.once('close', (hadError) => (hadError ? secure.destroy() : endThenDestroy(secure)));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    port: (server.address() as AddressInfo).port,
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
    stats: () => delay.stats(),
    close: () => {
      closing ??= Promise.all([delay.close(), termination.close()]).then(() => undefined);
      return closing;
    },
  };
}
