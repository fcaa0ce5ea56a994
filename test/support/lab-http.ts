import http from 'node:http';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { signRequest } from '../../local/auth/sigv4';
import { localClientConfig } from '../../local/engines';
import { LOCAL_CALLER, type RunningLab } from '../../local/lab';

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
