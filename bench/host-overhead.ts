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
import { type CpuThrottling, sumThrottling } from '../local/host/cgroups';
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
  /** The floor with its child on Lambda's Node (the environments' Node), same tiny messages. */
  readonly floorLambdaNodeP50: number;
  /** The floor on Lambda's Node with messages the size and shape of the host's invoke and result. */
  readonly floorSizedP50: number;
  /**
   * The GET function's CFS quota over the measured calls (memory as CPU): periods that ran,
   * periods throttled, ms throttled; undefined without cgroups.
   */
  readonly throttling: CpuThrottling | undefined;
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
  lambdaNode: string,
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
  const throttlingNow = () =>
    sumThrottling([...lab.pools.values()].flatMap((p) => p.snapshot().cpuThrottling ?? []));
  let throttle0: HostOverhead['throttling'];
  const directGet = () =>
    direct.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  try {
    for (let i = 0; i < calls + 20; i++) {
      if (i === 20) throttle0 = throttlingNow();
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
    const throttle1 = throttlingNow();
    const clientP50 = p50(rows.map((r) => r.client));
    const directP50 = p50(rows.map((r) => r.direct));
    const [floorP50, floorLambdaNodeP50, floorSizedP50] = await relayFloors(
      Math.round(directP50),
      calls,
      directGet,
      [{}, { node: lambdaNode }, { node: lambdaNode, sized: true }],
    );
    return {
      clientP50,
      directP50,
      overheadP50: clientP50 - directP50,
      apiAndIpcP50: p50(rows.map((r) => r.client - r.duration)),
      handlerP50: p50(rows.map((r) => r.duration - r.db)),
      dbInEnvironmentP50: p50(rows.map((r) => r.db)) - directP50,
      floorP50,
      floorLambdaNodeP50,
      floorSizedP50,
      thawP50: thaws.length > 0 ? p50(thaws) : undefined,
      throttling:
        throttle0 && throttle1
          ? {
              periods: throttle1.periods - throttle0.periods,
              throttled: throttle1.throttled - throttle0.throttled,
              throttledMs: throttle1.throttledMs - throttle0.throttledMs,
            }
          : undefined,
    };
  } finally {
    direct.destroy();
  }
}

/**
 * One relay floor: a bare HTTP server in this process (where the lab's API server runs too) that
 * hands each request to a child process over IPC: the same hops as the host, none of its work.
 * The child waits gapMs inside each call (the handler's database call) and answers with its own
 * time, so the call's extra is what the hops cost.
 */
interface Floor {
  call(): Promise<number>;
  close(): void;
}

async function startFloor(gapMs: number, variant: FloorVariant): Promise<Floor> {
  const env = fork(
    join(import.meta.dirname, 'relay-floor.mjs'),
    [String(gapMs), variant.sized ? 'sized' : ''],
    {
      execArgv: [],
      ...(variant.node ? { execPath: variant.node } : {}),
    },
  );
  // The sized variant sends a message shaped and sized like the lab's invoke of a signed GET.
  const message = variant.sized ? invokeLikeMessage() : { type: 'invoke' };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      env.once('message', (m: { ms: number }) => {
        const body = JSON.stringify({ ms: m.ms });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      });
      env.send(message);
    });
  });
  const agent = new http.Agent({ keepAlive: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    call: () =>
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
      }),
    close: () => {
      agent.destroy();
      server.close();
      env.kill();
    },
  };
}

export interface FloorVariant {
  /** The child's Node; undefined: this process's Node, as the floor has always run. */
  readonly node?: string;
  /** Messages the size and shape of the lab's invoke and result instead of a few bytes. */
  readonly sized?: boolean;
}

/** An invoke message like the host's for a signed GET through the API (about 2 KB of JSON). */
function invokeLikeMessage(): object {
  const headers: Record<string, string> = {
    host: '127.0.0.1:3000',
    'user-agent': 'aws-sdk-js/3.0.0 ua/2.1 os/linux lang/js md/nodejs#24.0.0 api/lab',
    accept: 'application/json',
    'x-amz-date': '20261125T220000Z',
    'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    authorization: `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261125/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${'a'.repeat(64)}`,
    connection: 'keep-alive',
  };
  const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  return {
    type: 'invoke',
    requestId: '6f1c1e0e-4a57-4b2e-9d7a-0c8f1f6f2a11',
    event: {
      resource: '/dynamodb/keepalive-on/person/{govId}',
      path: '/dynamodb/keepalive-on/person/OVERHEAD-1764108000000',
      httpMethod: 'GET',
      headers,
      multiValueHeaders,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: { govId: 'OVERHEAD-1764108000000' },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        protocol: 'HTTP/1.1',
        httpMethod: 'GET',
        identity: { sourceIp: '127.0.0.1' },
        path: '/lab/dynamodb/keepalive-on/person/OVERHEAD-1764108000000',
        stage: 'lab',
        requestId: '0b6e8f52-8a55-4d5e-a1c2-3c1f0f5d9e77',
        requestTimeEpoch: 1764108000000,
        resourceId: 'local',
        resourcePath: '/dynamodb/keepalive-on/person/{govId}',
      },
    },
    deadlineMs: 1764108006000,
  };
}

/**
 * The floor's p50 extra per call for each variant, interleaved call by call with `between` (the
 * bench's direct SDK call) after each, so every leg meets a process that has been idle as long as
 * in the host measurement: with no gap before a call, the child would take each message hot.
 */
async function relayFloors(
  gapMs: number,
  calls: number,
  between: () => Promise<unknown>,
  variants: readonly FloorVariant[],
): Promise<number[]> {
  const floors: Floor[] = [];
  try {
    for (const v of variants) floors.push(await startFloor(gapMs, v));
    const out = variants.map(() => [] as number[]);
    for (let i = 0; i < calls + 20; i++) {
      for (const [k, f] of floors.entries()) {
        const extra = await f.call();
        if (i >= 20) out[k].push(extra);
        await between();
      }
    }
    return out.map(p50);
  } finally {
    for (const f of floors) f.close();
  }
}
