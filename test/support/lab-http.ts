import http from 'node:http';
import net from 'node:net';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { signRequest } from '../../local/auth/sigv4';
import { LOCAL_CALLER, type RunningLab } from '../../local/lab';
import { localClientConfig } from '../../targets/dynamodb/engine';

export interface RawResponse {
  readonly status: number;
  readonly text: string;
  readonly json?: Record<string, unknown>;
}

/**
 * Sends a request exactly as given: the path is not normalized (so `..`, `%2F` and
 * control-character escapes reach the server), the body may be any bytes, and the
 * request is SigV4-signed unless `unsigned`.
 */
export async function rawRequest(
  lab: RunningLab,
  method: string,
  path: string,
  body?: string | Buffer,
  opts: { unsigned?: boolean; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const url = `${lab.url}${path}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (!opts.unsigned) {
    Object.assign(
      headers,
      await signRequest(
        { method, url, headers, body: body === undefined ? undefined : body.toString() },
        LOCAL_CALLER,
        LOCAL_CALLER.region,
      ),
    );
  }
  const u = new URL(lab.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path: `${u.pathname}${path}`, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Every item of every lab table, straight from the engine. */
export async function scanTables(lab: RunningLab): Promise<string[]> {
  const client = new DynamoDBClient(localClientConfig(lab.engine.endpoint));
  try {
    const items: string[] = [];
    for (const table of lab.tableNames) {
      const out = await client.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
      for (const i of out.Items ?? []) items.push(`${table} ${JSON.stringify(i)}`);
    }
    return items.sort();
  } finally {
    client.destroy();
  }
}

export function person(govId: string, extra: Record<string, unknown> = {}) {
  return {
    GovId: govId,
    FirstName: 'Grace',
    LastName: 'Hopper',
    DOB: '1906-12-09',
    GovIdType: 'Passport',
    ...extra,
  };
}

/** What came back on a raw socket: the bytes as text, and every status line's code in order. */
export interface RawExchange {
  readonly text: string;
  readonly statuses: number[];
  /** The server closed the connection (rather than the time running out). */
  readonly closed: boolean;
}

/**
 * Writes bytes to 127.0.0.1:port over a plain socket, exactly as given, and collects what comes
 * back until the server closes, `settleMs` pass with no new data after at least `expect`
 * responses, or `timeoutMs` runs out. `hangUp` ends the socket after writing (a client that
 * leaves mid-body). Never rejects: a reset is an answer too.
 */
export function rawExchange(
  port: number,
  payload: string | Buffer | readonly (string | Buffer)[],
  opts: { timeoutMs?: number; expect?: number; settleMs?: number; hangUp?: boolean } = {},
): Promise<RawExchange> {
  const { timeoutMs = 5000, expect = 1, settleMs = 150, hangUp = false } = opts;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let quiet: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(quiet);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ text, statuses, closed });
    };
    const deadline = setTimeout(() => finish(false), timeoutMs);
    const socket = net.connect(port, '127.0.0.1', () => {
      for (const part of Array.isArray(payload) ? payload : [payload]) socket.write(part);
      if (hangUp) socket.end();
    });
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      const seen = (
        Buffer.concat(chunks)
          .toString('latin1')
          .match(/HTTP\/1\.[01] \d{3} /g) ?? []
      ).length;
      clearTimeout(quiet);
      if (seen >= expect) quiet = setTimeout(() => finish(false), settleMs);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
  });
}

/**
 * A whole HTTP/1.1 request as text, SigV4-signed for `baseUrl + path` (the Host header is
 * the URL's host). `target` replaces the request-line target (e.g. absolute-form), and
 * `headers` are sent as given, after the signed ones.
 */
export async function signedRawRequest(
  baseUrl: string,
  method: string,
  path: string,
  body = '',
  opts: {
    target?: string;
    headers?: Record<string, string>;
    credentials?: { accessKeyId: string; secretAccessKey: string };
    region?: string;
  } = {},
): Promise<string> {
  const url = `${baseUrl}${path}`;
  const u = new URL(url);
  const base: Record<string, string> = { 'content-type': 'application/json' };
  const sig = await signRequest(
    { method, url, headers: base, body },
    opts.credentials ?? LOCAL_CALLER,
    opts.region ?? LOCAL_CALLER.region,
  );
  const headers = {
    host: u.host,
    ...base,
    ...sig,
    'content-length': String(Buffer.byteLength(body)),
    ...opts.headers,
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${opts.target ?? `${u.pathname}${u.search}`} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}
