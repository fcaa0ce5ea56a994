/** The network model's PostgreSQL mode: SSLRequest answered 'S' in clear, then TLS, then plaintext relayed. */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/paths';
import { SSL_REQUEST } from '../../core/pg-wire';
import { type NetworkModel, startNetworkModel } from '../../local/network/network-model';
import { ensureCertificates } from '../../local/tls/certificates';

let upstream: net.Server;
let model: NetworkModel;
let ca: Buffer;
const received: Buffer[] = [];

beforeAll(async () => {
  const certs = await ensureCertificates(join(PROJECT_ROOT, '.cache', 'tls'));
  ca = await readFile(certs.caCertPath);
  // A plaintext "server" that records what reaches it and answers "pong".
  upstream = net.createServer((s) => {
    s.on('data', (d) => {
      received.push(d);
      s.write('pong');
    });
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  model = await startNetworkModel({
    upstreamHost: '127.0.0.1',
    upstreamPort: (upstream.address() as net.AddressInfo).port,
    rttMs: 10,
    tls: certs,
    startTls: 'postgres',
  });
});

afterAll(async () => {
  await model?.close();
  upstream?.close();
});

const connect = async (): Promise<net.Socket> => {
  const socket = net.connect(model.port, '127.0.0.1');
  await once(socket, 'connect');
  return socket;
};

describe("network model with startTls 'postgres'", () => {
  it("answers SSLRequest with 'S' in clear after a round trip, then runs TLS and relays plaintext", async () => {
    const socket = await connect();
    const t0 = performance.now();
    socket.write(SSL_REQUEST);
    const [answer] = (await once(socket, 'data')) as [Buffer];
    const sslMs = performance.now() - t0;
    expect(answer.toString('latin1')).toBe('S');
    // The connect charge (one rtt) and the exchange itself (one rtt).
    expect(sslMs).toBeGreaterThanOrEqual(19);
    const secure = tls.connect({ socket, servername: 'localhost', ca });
    await once(secure, 'secureConnect');
    expect(secure.getProtocol()).toBe('TLSv1.3');
    secure.write('ping');
    const [pong] = (await once(secure, 'data')) as [Buffer];
    expect(pong.toString()).toBe('pong');
    // The SSLRequest stops at the model: the server sees only what came over TLS.
    expect(Buffer.concat(received).toString()).toBe('ping');
    secure.destroy();
  });

  it('refuses a client that starts without SSLRequest with a PostgreSQL FATAL error', async () => {
    const socket = await connect();
    // A StartupMessage (protocol 3.0, user x): what a client with sslmode=disable sends.
    const body = Buffer.from('user\0x\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + body.length, 0);
    startup.writeInt32BE(196608, 4);
    socket.write(Buffer.concat([startup, body]));
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    await once(socket, 'end');
    const reply = Buffer.concat(chunks);
    expect(reply.subarray(0, 1).toString()).toBe('E');
    expect(reply.toString('latin1')).toMatch(/SFATAL\0.*C28000\0MTLS is required/);
  });
});
