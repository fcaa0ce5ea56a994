/**
 * The network model counts the connections open at the database: N clients, each with its own
 * kept-alive connection (as N standard Lambda environments hold one each), are N connections open
 * at a real engine (dynalite), counted in the model's own process as the lab runs it. A window
 * started at a phase's start counts only the connections that carried its requests; idle ones
 * other functions left open are counted apart.
 */
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type NetworkModelProcess,
  startNetworkModelProcess,
} from '../../local/network/network-model-process';
import { ensureCertificates } from '../../local/tls/certificates';
import { type Engine, localClientConfig, startEngine } from '../../targets/dynamodb/engine';

const CLIENTS = 6;

let engine: Engine;
let model: NetworkModelProcess;
let ca: Buffer;

/** One client with its own connection pool, as one execution environment has. */
function client(keepAlive: boolean): { send(): Promise<unknown>; close(): void } {
  const agent = new https.Agent({ keepAlive, ca, maxSockets: 50 });
  const c = new DynamoDBClient({
    ...localClientConfig(model.url),
    requestHandler: new NodeHttpHandler({ httpsAgent: agent }),
  });
  return {
    send: () => c.send(new ListTablesCommand({})),
    close: () => {
      c.destroy();
      agent.destroy();
    },
  };
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  const certs = await ensureCertificates(join(tmpdir(), 'lab-test-connections-tls'));
  ca = await readFile(certs.caCertPath);
  engine = await startEngine({ kind: 'dynalite' });
  model = await startNetworkModelProcess({
    upstreamHost: '127.0.0.1',
    upstreamPort: engine.port,
    rttMs: 2,
    tls: certs,
  });
}, 60_000);

afterAll(async () => {
  await model?.close();
  await engine?.stop();
});

describe('connections open at the database, counted by the network model', () => {
  it('N clients with kept connections are N open; a new window counts the ones its requests used', async () => {
    await model.connections({ mark: true });
    const clients = Array.from({ length: CLIENTS }, () => client(true));
    try {
      await Promise.all(clients.map((c) => c.send()));
      // Kept alive: a second round reuses each client's connection, opening none.
      await Promise.all(clients.map((c) => c.send()));
      const first = await model.connections({ mark: true });
      expect(first).toEqual({
        open: CLIENTS,
        peakOpen: CLIENTS,
        peakActive: CLIENTS,
        active: CLIENTS,
        opened: CLIENTS,
      });

      // The next phase: two of them carry requests, the rest stay open and idle.
      await Promise.all(clients.slice(0, 2).map((c) => c.send()));
      const second = await model.connections();
      expect(second).toEqual({ open: CLIENTS, peakOpen: CLIENTS, peakActive: 2, active: 2, opened: 0 });

      // A client without keep-alive opens a connection per request and closes it.
      const once = client(false);
      await once.send();
      await once.send();
      once.close();
      await until(async () => (await model.connections()).open === CLIENTS);
      const third = await model.connections();
      expect(third.opened).toBe(2);
      expect(third.active).toBe(4);
    } finally {
      for (const c of clients) c.close();
    }
    // Closed by the clients: the database holds none.
    await until(async () => (await model.connections()).open === 0);
  }, 60_000);
});
