/** A signed HTTP client for the lab API, as the load scenarios call it: SigV4 on every request. */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { AwsCredentialIdentity } from '@smithy/types';
import { signRequest } from '../local/auth/sigv4';

export interface LabResponse {
  readonly status: number;
  readonly body: {
    timing?: { dbMs: number; newConnection: boolean; coldStart: boolean; initType: string };
  } & Record<string, unknown>;
  readonly headers: http.IncomingHttpHeaders;
  /** Wall time of the request, signing excluded. */
  readonly ms: number;
  readonly signMs: number;
}

export class LabClient {
  // Kept-alive connections, as Artillery's HTTP engine keeps them within a virtual user.
  private readonly httpAgent = new http.Agent({ keepAlive: true });
  private readonly httpsAgent = new https.Agent({ keepAlive: true });

  constructor(
    private readonly baseUrl: string,
    private readonly credentials: AwsCredentialIdentity,
    private readonly region: string,
  ) {}

  async request(method: 'GET' | 'POST', path: string, json?: unknown): Promise<LabResponse> {
    const url = `${this.baseUrl}${path}`;
    const body = json === undefined ? undefined : JSON.stringify(json);
    const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
    const s0 = performance.now();
    const signed = await signRequest({ method, url, headers, body }, this.credentials, this.region);
    const s1 = performance.now();
    const { status, headers: received, text } = await this.send(url, method, { ...headers, ...signed }, body);
    const ms = performance.now() - s1;
    let parsed: LabResponse['body'] = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { raw: text };
    }
    return { status, headers: received, body: parsed, ms, signMs: s1 - s0 };
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private send(url: string, method: string, headers: Record<string, string>, body?: string) {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const agent = u.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
    return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const req = mod.request(u, { method, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      },
    );
  }
}
