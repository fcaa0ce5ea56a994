/**
 * A stand-in for the lab API on 127.0.0.1 and an ephemeral port: POST {base}/person and
 * GET {base}/person/{govId} for any base path, an in-memory map, the real Person validation,
 * and a timing block with a fake dbMs. The first request of each base path is a cold start
 * on a new connection, like a fresh execution environment.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validatePerson } from '../../lambda/shared/person';

export interface FakeLabApi {
  /** e.g. http://127.0.0.1:40123/lab */
  readonly url: string;
  /** every request seen: method, path, status */
  readonly requests: { method: string; path: string; status: number }[];
  readonly people: Map<string, unknown>;
  /** Most requests it held at once: what a closed loop's worker count bounds. */
  maxInFlight(): number;
  close(): Promise<void>;
}

export interface FakeLabApiOptions {
  /** Each answer waits this long, so that concurrent requests overlap. @default 0 */
  readonly delayMs?: number;
}

const PERSON_PATH = /^\/lab(\/[A-Za-z0-9/_-]*?)?\/person(?:\/([A-Za-z0-9_-]{1,64}))?$/;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

export async function startFakeLabApi(opts: FakeLabApiOptions = {}): Promise<FakeLabApi> {
  const people = new Map<string, unknown>();
  const requests: FakeLabApi['requests'] = [];
  const warm = new Set<string>();
  let inFlight = 0;
  let maxInFlight = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = req.url ?? '';
    const body = await readBody(req);
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    const m = PERSON_PATH.exec(path);
    const base = m?.[1] ?? '';
    const cold = !warm.has(base);
    warm.add(base);
    // 1-4 ms with 3 decimals, like the handlers' performance.now() measurement.
    const dbMs = Math.round((1 + Math.random() * 3) * 1000) / 1000;
    const timing = { dbMs, newConnection: cold, dbRequests: 1, coldStart: cold, initType: 'on-demand' };
    const reply = (status: number, payload: Record<string, unknown>): void => {
      requests.push({ method: req.method ?? '', path, status });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...payload, timing }));
    };
    if (!m) return reply(404, { error: `no route ${path}` });
    const govId = m[2];
    if (req.method === 'POST' && govId === undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return reply(400, { error: 'malformed JSON' });
      }
      const person = validatePerson(parsed);
      if (!person.ok) return reply(400, { error: person.error, field: person.field });
      if (people.has(person.value.GovId)) return reply(409, { error: 'exists' });
      people.set(person.value.GovId, person.value);
      return reply(201, { person: person.value });
    }
    if (req.method === 'GET' && govId !== undefined) {
      const person = people.get(govId);
      return person ? reply(200, { person }) : reply(404, { error: `no person with GovId ${govId}` });
    }
    return reply(405, { error: 'method not allowed' });
  };

  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => {
      inFlight -= 1;
    });
    handle(req, res).catch((e: unknown) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/lab`,
    requests,
    people,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
