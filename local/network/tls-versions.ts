/**
 * Which TLS versions a network model actually negotiates: one handshake per version, pinned the
 * way a client pins it (maxVersion), verified against the lab's CA. The lab names the result in
 * its run header, so "TLS 1.2 and 1.3" there is what was negotiated, not what was configured.
 */
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import tls from 'node:tls';
import { SSL_REQUEST } from '../../core/pg-wire';
import type { StartTls } from './network-model';

/** The versions a client may pin, oldest first: what AWS endpoints accept. */
export const PINNED_VERSIONS = ['TLSv1.2', 'TLSv1.3'] as const;
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** ['TLSv1.2', 'TLSv1.3'] -> `TLS 1.2 and 1.3`; each version once. */
export function tlsLabels(versions: readonly string[]): string {
  const numbers = [...new Set(versions.map((v) => v.replace(/^TLSv/, '')))];
  return numbers.length === 0 ? 'no TLS' : `TLS ${numbers.join(' and ')}`;
}

/** One handshake with the model at `url`, pinned to at most `maxVersion`: the version negotiated. */
export async function negotiate(
  url: string,
  maxVersion: tls.SecureVersion,
  opts: { readonly ca: Buffer; readonly startTls?: StartTls },
): Promise<string> {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  const raw = opts.startTls === 'postgres' ? await postgresSslRequest(host, Number(port)) : undefined;
  return new Promise<string>((resolve, reject) => {
    const socket = tls.connect({
      host,
      port: Number(port),
      socket: raw,
      servername: net.isIP(host) ? undefined : host,
      ca: opts.ca,
      minVersion: 'TLSv1.2',
      maxVersion,
    });
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () =>
      socket.destroy(new Error(`no TLS handshake within ${HANDSHAKE_TIMEOUT_MS} ms`)),
    );
    socket.once('secureConnect', () => {
      const version = socket.getProtocol() ?? 'unknown';
      socket.end();
      resolve(version);
    });
    socket.once('error', reject);
  });
}

/** A connection past PostgreSQL's SSLRequest, ready for the TLS handshake (DSQL's way in). */
function postgresSslRequest(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy(new Error('no answer to SSLRequest')));
    socket.once('error', reject);
    socket.once('connect', () => socket.write(SSL_REQUEST));
    socket.once('data', (answer: Buffer) => {
      socket.setTimeout(0);
      socket.off('error', reject);
      if (answer[0] === 0x53 /* 'S' */) resolve(socket);
      else {
        socket.destroy();
        reject(new Error(`SSLRequest answered ${JSON.stringify(answer.toString('latin1', 0, 1))}, not 'S'`));
      }
    });
  });
}

/** The version each pinned client negotiated with the model, oldest pin first. */
export async function negotiatedVersions(
  url: string,
  opts: { readonly caCertPath: string; readonly startTls?: StartTls },
): Promise<string[]> {
  const ca = await readFile(opts.caCertPath);
  const out: string[] = [];
  for (const max of PINNED_VERSIONS) out.push(await negotiate(url, max, { ca, startTls: opts.startTls }));
  return out;
}
