/**
 * The client of section 2 (host-overhead.ts), in a process of its own, as a load tool is (the
 * lab's Artillery runs in its own process): in the bench's process it would share the host's
 * event loop, and whatever the host does after its response (END, REPORT, the peak-memory read)
 * would sit between the response and its read, which no user's client sees.
 *
 * IPC, parent -> child: a Config, then Runs; child -> parent: 'ready', then a RunResult per Run
 * (or an error). Each call is followed by a direct SDK GetItem to the same item, through the
 * same network model, as the host's handler makes it.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCredentialIdentity } from '@smithy/types';
import { localClientConfig } from '../targets/dynamodb/engine';
import { floorCall, labFloorCall } from './floor-call';
import { LabClient } from './lab-client';

export interface OverheadClientConfig {
  readonly type: 'config';
  readonly labUrl: string;
  readonly credentials: AwsCredentialIdentity;
  readonly region: string;
  readonly modelUrl: string;
  readonly caPath: string;
  readonly table: string;
  readonly key: Record<string, { S: string }>;
  /** The GET's path under the lab's URL. */
  readonly path: string;
}

/** A relay floor's port on 127.0.0.1; the lab floor is called with the host's own GET (labFloorCall). */
export interface FloorAddress {
  readonly port: number;
  readonly lab: boolean;
}

/** n rounds; in each, the host's GET (when host) then each floor in turn, each call followed by a direct call. */
export interface OverheadRun {
  readonly type: 'run';
  readonly n: number;
  readonly host: boolean;
  readonly floors: readonly FloorAddress[];
}

export interface OverheadRunResult {
  readonly type: 'result';
  /** Per host GET: the client's time and the handler's dbMs. */
  readonly host: { client: number; db: number }[];
  /** The direct call after each host GET. */
  readonly direct: number[];
  /** Per floor, per call: the client's time minus the time its child reported. */
  readonly floors: number[][];
}

let config: OverheadClientConfig | undefined;
let lab: LabClient | undefined;
let direct: DynamoDBClient | undefined;
const floorAgent = new http.Agent({ keepAlive: true });
/** One signing client per lab floor, kept: its connection stays alive as the host's does. */
const labFloorClients = new Map<number, LabClient>();
function labFloorClient(port: number): LabClient {
  if (!config) throw new Error('run before config');
  let client = labFloorClients.get(port);
  if (!client) {
    // The host's base path too, so the request line is the same length.
    const base = new URL(config.labUrl);
    client = new LabClient(`http://127.0.0.1:${port}${base.pathname}`, config.credentials, config.region);
    labFloorClients.set(port, client);
  }
  return client;
}

async function run(r: OverheadRun): Promise<OverheadRunResult> {
  if (!config || !lab || !direct) throw new Error('run before config');
  const { table, key, path } = config;
  const d = direct;
  const directGet = async () => {
    const t = performance.now();
    await d.send(new GetItemCommand({ TableName: table, Key: key, ConsistentRead: true }));
    return performance.now() - t;
  };
  const out: OverheadRunResult = { type: 'result', host: [], direct: [], floors: r.floors.map(() => []) };
  for (let i = 0; i < r.n; i++) {
    if (r.host) {
      const res = await lab.request('GET', path);
      if (res.status !== 200) throw new Error(`get answered ${res.status}`);
      out.host.push({ client: res.ms, db: res.body.timing?.dbMs ?? Number.NaN });
      out.direct.push(await directGet());
    }
    for (const [k, f] of r.floors.entries()) {
      out.floors[k].push(
        await (f.lab ? labFloorCall(labFloorClient(f.port), path) : floorCall(f.port, floorAgent)),
      );
      await directGet();
    }
  }
  return out;
}

process.on('message', (m: OverheadClientConfig | OverheadRun) => {
  const answer = async () => {
    if (m.type === 'config') {
      config = m;
      lab = new LabClient(m.labUrl, m.credentials, m.region);
      direct = new DynamoDBClient({
        ...localClientConfig(m.modelUrl),
        requestHandler: new NodeHttpHandler({
          httpsAgent: new https.Agent({ keepAlive: true, ca: readFileSync(m.caPath) }),
        }),
      });
      return { type: 'ready' };
    }
    return run(m);
  };
  answer().then(
    (reply) => process.send?.(reply),
    (e: unknown) => process.send?.({ type: 'error', message: e instanceof Error ? e.message : String(e) }),
  );
});
// Gone with the bench: its IPC channel closing ends this process.
process.on('disconnect', () => process.exit(0));
