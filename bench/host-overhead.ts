/**
 * What the local host adds to a request, and where. Host calls and direct SDK calls are
 * interleaved one for one, so drift on a shared machine falls on both sides alike.
 *
 *   overhead      client p50 through the host - direct SDK call p50 (the definition)
 *   api + ipc     client time - the invocation's REPORT Duration: HTTP to the host, SigV4
 *                 check, event, IPC to the environment and back
 *   handler       REPORT Duration - the handler's dbMs: validation, response, EMF line
 *   db in env     the handler's dbMs - the direct call: the same SDK call made from the
 *                 environment process instead of the bench process
 *   floor         the same hops with no work (relayFloor), the same idle gaps: the least any
 *                 host with separate environment processes can cost on this machine
 *   thaw          the kernel's write that wakes a frozen environment (cgroup freezer), p50 of
 *                 the same invocations: part of the overhead, but one Lambda's sandbox pays too
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { localClientConfig } from '../local/engines';
import type { RunningLab } from '../local/lab';
import { ladderOf } from '../runs/latency-histogram';
import type { LabClient } from './lab-client';

export interface HostOverhead {
  readonly clientP50: number;
  readonly directP50: number;
  readonly overheadP50: number;
  readonly apiAndIpcP50: number;
  readonly handlerP50: number;
  readonly dbInEnvironmentP50: number;
  readonly floorP50: number;
  /** The thaw of a frozen environment per invocation, p50 ms; undefined when none was frozen. */
  readonly thawP50: number | undefined;
}

const p50 = (xs: readonly number[]) => ladderOf(xs)?.p50 ?? Number.NaN;

/**
 * @param reportDurations the REPORT Duration of every invocation, in order; the caller
 *   fills it from the lab's function log.
 */
export async function hostOverhead(
  lab: RunningLab,
  client: LabClient,
  reportDurations: number[],
  calls: number,
): Promise<HostOverhead> {
  const agent = new https.Agent({ keepAlive: true, ca: readFileSync(lab.caCertPath) });
  const direct = new DynamoDBClient({
    ...localClientConfig(lab.model.url),
    requestHandler: new NodeHttpHandler({ httpsAgent: agent }),
  });
  const tableName = lab.tableNames[0];
  const base = '/dynamodb/keepalive-on/person';
  const id = `OVERHEAD-${Date.now()}`;
  const created = await client.request('POST', base, {
    GovId: id,
    FirstName: 'Over',
    LastName: 'Head',
    DOB: '1990-01-01',
    GovIdType: 'Passport',
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}`);
  const key = { GovId: { S: id } };
  await direct.send(new PutItemCommand({ TableName: tableName, Item: { ...key, FirstName: { S: 'x' } } }));
  const rows: { client: number; duration: number; db: number; direct: number }[] = [];
  // Only the GET function runs from here on: every thaw the pools record is one of these calls'.
  const thawsBefore = new Map([...lab.pools].map(([name, p]) => [name, p.snapshot().thawMs.length]));
  const directGet = () =>
    direct.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  try {
    for (let i = 0; i < calls + 20; i++) {
      const seen = reportDurations.length;
      const res = await client.request('GET', `${base}/${id}`);
      if (res.status !== 200) throw new Error(`get answered ${res.status}`);
      const t = performance.now();
      await directGet();
      const directMs = performance.now() - t;
      const duration = reportDurations[seen];
      if (i >= 20 && duration !== undefined)
        rows.push({ client: res.ms, duration, db: res.body.timing?.dbMs ?? Number.NaN, direct: directMs });
    }
    const thaws = [...lab.pools].flatMap(([name, p]) =>
      p.snapshot().thawMs.slice(thawsBefore.get(name) ?? 0),
    );
    const clientP50 = p50(rows.map((r) => r.client));
    const directP50 = p50(rows.map((r) => r.direct));
    return {
      clientP50,
      directP50,
      overheadP50: clientP50 - directP50,
      apiAndIpcP50: p50(rows.map((r) => r.client - r.duration)),
      handlerP50: p50(rows.map((r) => r.duration - r.db)),
      dbInEnvironmentP50: p50(rows.map((r) => r.db)) - directP50,
      floorP50: await relayFloor(Math.round(directP50), calls, directGet),
      thawP50: thaws.length > 0 ? p50(thaws) : undefined,
    };
  } finally {
    direct.destroy();
  }
}

/**
 * A bare HTTP server in this process (where the lab's API server runs too) that hands each
 * request to a child process over IPC: the same hops as the host, none of its work. The child
 * waits gapMs inside each call (the handler's database call), and `between` runs between calls
 * (the bench's direct SDK call), so both legs meet a process that has been idle as long as in
 * the host measurement: with no gap before a call, the child would take each message hot.
 */
async function relayFloor(gapMs: number, calls: number, between: () => Promise<unknown>): Promise<number> {
  const env = fork(join(import.meta.dirname, 'relay-floor.mjs'), [String(gapMs)], { execArgv: [] });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      env.once('message', (m) => {
        const body = JSON.stringify(m);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      });
      env.send({ type: 'invoke' });
    });
  });
  const agent = new http.Agent({ keepAlive: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const call = () =>
      new Promise<number>((resolve, reject) => {
        const t = performance.now();
        const req = http.request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => resolve(performance.now() - t - (JSON.parse(body) as { ms: number }).ms));
        });
        req.on('error', reject);
        req.end();
      });
    const out: number[] = [];
    for (let i = 0; i < calls + 20; i++) {
      const extra = await call();
      if (i >= 20) out.push(extra);
      await between();
    }
    return p50(out);
  } finally {
    agent.destroy();
    server.close();
    env.kill();
  }
}
