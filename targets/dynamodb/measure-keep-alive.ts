/**
 * Measures what the network model makes keep-alive worth: the real SDK (DynamoDB client,
 * NodeHttpHandler, https.Agent with keepAlive on or off) against an in-process dynalite
 * behind the model, sequential GetItem calls, p50 per variant: the keep-alive article's call,
 * through the model every target shares.
 */

import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import https from 'node:https';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { DEFAULT_RTT_MS, startNetworkModel } from '../../local/network/network-model';
import { defaultCertificateDir, ensureCertificates } from '../../local/tls/certificates';

export interface MeasureOptions {
  /** @default DEFAULT_RTT_MS */
  readonly rttMs?: number;
  /** Timed calls per variant. @default 200 */
  readonly calls?: number;
  /** Untimed calls per variant first (JIT, TLS session cache, engine). @default 20 */
  readonly warmupCalls?: number;
  /** Where the local CA and server certificate live. @default '.cache/tls' */
  readonly certDir?: string;
}

export interface KeepAliveRatio {
  /** Median GetItem duration with keep-alive on, ms. */
  readonly onP50: number;
  /** Median GetItem duration with keep-alive off, ms. */
  readonly offP50: number;
  /** offP50 / onP50. */
  readonly ratio: number;
}

interface DynaliteOptions {
  readonly createTableMs?: number;
  readonly deleteTableMs?: number;
  readonly updateTableMs?: number;
}
// dynalite is CommonJS without types; this is the one entry point used here.
const dynalite = createRequire(import.meta.url)('dynalite') as (options?: DynaliteOptions) => Server;

const TABLE = 'Person';
const KEY = { GovId: { S: 'keep-alive-probe' } };
/** Calls run in alternating blocks so drift on a busy machine hits both variants alike. */
const BLOCK = 25;

function p50(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function startDynalite(): Promise<{ port: number; close(): Promise<void> }> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function measureKeepAliveRatio(options: MeasureOptions = {}): Promise<KeepAliveRatio> {
  const rttMs = options.rttMs ?? DEFAULT_RTT_MS;
  const calls = options.calls ?? 200;
  const warmupCalls = options.warmupCalls ?? 20;
  const certs = await ensureCertificates(options.certDir ?? defaultCertificateDir());
  // In-process callers cannot use NODE_EXTRA_CA_CERTS (read at process start): pass the CA.
  const ca = await readFile(certs.caCertPath);

  const engine = await startDynalite();
  const model = await startNetworkModel({
    upstreamHost: '127.0.0.1',
    upstreamPort: engine.port,
    rttMs,
    tls: certs,
  });
  const variants = [true, false].map((keepAlive) => {
    const agent = new https.Agent({ keepAlive, ca });
    const client = new DynamoDBClient({
      endpoint: model.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      requestHandler: new NodeHttpHandler({ httpsAgent: agent }),
    });
    return { agent, client, samples: [] as number[] };
  });
  const [on, off] = variants;

  try {
    await on.client.send(
      new CreateTableCommand({
        TableName: TABLE,
        AttributeDefinitions: [{ AttributeName: 'GovId', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'GovId', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    await on.client.send(new PutItemCommand({ TableName: TABLE, Item: { ...KEY, Name: { S: 'Probe' } } }));

    const get = new GetItemCommand({ TableName: TABLE, Key: KEY });
    for (const variant of variants) {
      for (let i = 0; i < warmupCalls; i++) await variant.client.send(get);
    }
    for (let done = 0; done < calls; done += BLOCK) {
      for (const variant of variants) {
        for (let i = 0; i < Math.min(BLOCK, calls - done); i++) {
          const start = performance.now();
          await variant.client.send(get);
          variant.samples.push(performance.now() - start);
        }
      }
    }
  } finally {
    for (const variant of variants) {
      variant.client.destroy();
      variant.agent.destroy();
    }
    await model.close();
    await engine.close();
  }

  const onP50 = p50(on.samples);
  const offP50 = p50(off.samples);
  return { onP50, offP50, ratio: offP50 / onP50 };
}
