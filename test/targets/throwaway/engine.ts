/**
 * The throwaway target's engine: a Map of Persons behind one JSON-over-HTTP endpoint on
 * 127.0.0.1, started in the lab's own process so every execution environment sees the same
 * data. One request per store call: `POST /` with `{"op": ..., ...}`, answered `{"result": ...}`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Person } from '../../../lambda/shared/person';

export type EngineRequest =
  | { readonly op: 'create' | 'overwrite'; readonly person: Person }
  | { readonly op: 'get'; readonly govId: string }
  | { readonly op: 'update'; readonly govId: string; readonly address: string }
  | { readonly op: 'query'; readonly govIdType: string; readonly limit: number };

interface Row {
  readonly person: Person;
  /** Creation order: the query's newest first, kept by the engine and never returned. */
  readonly created: number;
}

/** What the engine does with one request; plain, so a test can call it without a socket. */
export function applyRequest(rows: Map<string, Row>, next: () => number, r: EngineRequest): unknown {
  switch (r.op) {
    case 'create':
      if (rows.has(r.person.GovId)) return 'exists';
      rows.set(r.person.GovId, { person: r.person, created: next() });
      return 'created';
    case 'overwrite':
      if (!rows.has(r.person.GovId)) return 'missing';
      rows.set(r.person.GovId, { person: r.person, created: next() });
      return 'replaced';
    case 'get':
      return rows.get(r.govId)?.person ?? null;
    case 'update': {
      const row = rows.get(r.govId);
      if (!row) return null;
      const person = { ...row.person, Address: r.address };
      rows.set(r.govId, { person, created: row.created });
      return person;
    }
    case 'query':
      return [...rows.values()]
        .filter((row) => row.person.GovIdType === r.govIdType)
        .sort((a, b) => b.created - a.created)
        .slice(0, r.limit)
        .map((row) => row.person);
  }
}

export interface MapEngine {
  readonly port: number;
  /** Closes the listener (and its connections) and listens again on the same port, data kept. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startMapEngine(port = 0): Promise<MapEngine> {
  const rows = new Map<string, Row>();
  let clock = 0;
  const listen = async (at: number): Promise<Server> => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let status = 200;
        let body: unknown;
        try {
          body = { result: applyRequest(rows, () => ++clock, JSON.parse(Buffer.concat(chunks).toString())) };
        } catch (e) {
          status = 400;
          body = { error: (e as Error).message };
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, '127.0.0.1', resolve);
    });
    return server;
  };
  let server = await listen(port);
  const bound = (server.address() as AddressInfo).port;
  const close = (s: Server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  return {
    port: bound,
    async restart() {
      await close(server);
      server = await listen(bound);
    },
    stop: () => close(server),
  };
}
