/**
 * What the local host adds to a request, and where. Host calls, lab floor calls and direct SDK
 * calls are interleaved one for one, so drift on a shared machine falls on every side alike.
 * They come from a client process of their own (overhead-client.ts), as a load tool's do.
 *
 *   overhead      client p50 through the host - direct SDK call p50 (the definition)
 *   api + ipc     client time - the invocation's REPORT Duration: HTTP to the host, SigV4
 *                 check, event, IPC to the environment and back
 *   handler       REPORT Duration - the handler's dbMs: validation, response, EMF line
 *   db in env     the handler's dbMs - the direct call: the same SDK call made from the
 *                 environment process instead of the client process
 *   floor         the same hops with no work (relayFloor), the same idle gaps: the least any
 *                 host with separate environment processes can cost on this machine
 *   lab floor     the same hops under the lab's conditions: the child is the lab's own runtime
 *                 worker (runtime-worker.mjs), on Lambda's Node with the function's environment,
 *                 its heap flags and a cgroup of its CPU share, frozen between calls as the lab
 *                 freezes its environments, and runs the GET function's own handler on a proxy
 *                 event of the host's size (so the same GetItem through the same network model,
 *                 the same EMF line). It is called as the host is: by the same signing client
 *                 with the host's own GET (it checks no signature), and it answers with the
 *                 handler's own response, its time in a header. An idle floor's child sleeps
 *                 while the engines would run, so its hops start with warmer caches and an
 *                 unthrottled CPU than any host's can here. What the host takes over the lab
 *                 floor is the host's own work alone: SigV4, route, event, pool and its lines.
 *   goal figure   api + ipc (client - REPORT Duration, per call) minus the lab floor's client
 *                 time minus its handler's time, per call: both paired, so the service time the
 *                 network model draws for each call (p50 2.6 ms, p99 15) cancels out, which it
 *                 does not in `overhead` (two p50s of independent draws: about 0.2 ms of noise
 *                 at 300 calls), and the handler's own code, which Lambda runs too, is on
 *                 neither side
 *   thaw          the kernel's write that wakes a frozen environment (cgroup freezer), p50 of
 *                 the same invocations, the host's and the lab floor's: the Lambda model's cost
 *                 (Lambda's sandbox pays a resume too), on both sides of the goal figure
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { AwsCredentialIdentity } from '@smithy/types';
import {
  type CgroupTree,
  type CpuThrottling,
  joinCgroupScript,
  openCgroups,
  sumThrottling,
} from '../local/host/cgroups';
import { FREEZE_AFTER_MS, RUNTIME_WORKER, resolveHandler } from '../local/host/execution-environment';
import { heapFlags, invokeCpuLimit } from '../local/host/lambda-memory';
import type { RunningLab } from '../local/lab';
import { ladderOf } from '../runs/latency-histogram';
import { localClientConfig } from '../targets/dynamodb/engine';
import { floorCall, HANDLER_MS_HEADER, labFloorCall } from './floor-call';
import { LabClient } from './lab-client';
import type { OverheadClientConfig, OverheadRun, OverheadRunResult } from './overhead-client';

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
  /** The lab floor (see the header): the hops around the function's own handler, p50 per call. */
  readonly labFloorP50: number;
  /** The lab floor's thaw of its frozen child per call, p50 ms; undefined when it was not frozen. */
  readonly labFloorThawP50: number | undefined;
  /** Why the lab floor's child ran without the CPU share (no cgroups); undefined when it had it. */
  readonly labFloorUnshared: string | undefined;
  /**
   * The GET function's CFS quota over the measured calls (memory as CPU): periods that ran,
   * periods throttled, ms throttled; undefined without cgroups.
   */
  readonly throttling: CpuThrottling | undefined;
}

const p50 = (xs: readonly number[]) => ladderOf(xs)?.p50 ?? Number.NaN;

/** The function the measured calls reach: the lab floor's child gets its CPU share. */
const GET_FUNCTION = 'dynamodb-get-keepalive-on';

/**
 * @param reportDurations the REPORT Duration of every invocation, in order; the caller
 *   fills it from the lab's function log.
 */
export async function hostOverhead(
  lab: RunningLab,
  client: LabClient,
  /** Who signs the client's requests, and where: the lab's local caller. */
  caller: AwsCredentialIdentity & { readonly region: string },
  reportDurations: number[],
  calls: number,
  lambdaNode: string,
  /** Whether the lab freezes idle environments: the lab floor's child is frozen alike. */
  freeze: boolean,
): Promise<HostOverhead> {
  const agent = new https.Agent({ keepAlive: true, ca: readFileSync(lab.caCertPath) });
  const direct = new DynamoDBClient({
    ...localClientConfig(lab.model.url),
    requestHandler: new NodeHttpHandler({ httpsAgent: agent }),
  });
  const tableName = lab.tableNames[0];
  const base = '/dynamodb/keepalive-on/person';
  const id = `OVERHEAD-${Date.now()}`;
  const get = lab.pools.get(GET_FUNCTION);
  const fn = lab.assembly.functions.find((f) => f.name === GET_FUNCTION);
  if (!get || !fn) throw new Error(`the lab has no ${GET_FUNCTION} function`);
  const handler = { ...resolveHandler(fn), env: get.environment };
  // The CPU share only where the lab's own environments have one.
  const share = lab.memoryModel.modeled ? { memoryMb: get.memoryMb } : undefined;
  const idleVariants: FloorVariant[] = [{}, { node: lambdaNode }, { node: lambdaNode, sized: true }];
  const labVariant: FloorVariant = { node: lambdaNode, handler, share, freeze };
  // Only the GET function runs from here on: every thaw the pools record is one of these calls'.
  const thawCounts = () => new Map([...lab.pools].map(([name, p]) => [name, p.snapshot().thawMs.length]));
  const throttlingNow = () =>
    sumThrottling([...lab.pools.values()].flatMap((p) => p.snapshot().cpuThrottling ?? []));
  let overheadClient: OverheadClientProcess | undefined;
  let labFloor: Floors | undefined;
  let idleFloors: Floors | undefined;
  try {
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
    overheadClient = await startOverheadClient({
      type: 'config',
      labUrl: lab.url,
      credentials: { accessKeyId: caller.accessKeyId, secretAccessKey: caller.secretAccessKey },
      region: caller.region,
      modelUrl: lab.model.url,
      caPath: lab.caCertPath,
      table: tableName,
      key,
      path: `${base}/${id}`,
    });
    // Each host call's REPORT Duration, in order: only this client calls the lab meanwhile.
    const runHost = async (run: Omit<OverheadRun, 'type'>) => {
      const seen = reportDurations.length;
      const result = await overheadClient?.run(run);
      if (!result) throw new Error('the overhead client is gone');
      const durations = reportDurations.slice(seen);
      if (durations.length !== result.host.length)
        throw new Error(`${result.host.length} host calls but ${durations.length} REPORT lines`);
      return { ...result, durations };
    };
    // Warm-up: the environment, the connections, and the idle floors' gap (a direct call's p50).
    const warm = await runHost({ n: 20, host: true, floors: [] });
    const gapMs = Math.round(p50(warm.direct));
    labFloor = await startFloors(gapMs, id, [labVariant]);
    const throttle0 = throttlingNow();
    const thawsBefore = thawCounts();
    // The host and the lab floor call by call in turn, each call followed by a direct call, so
    // drift on a shared machine falls on both alike and their environments idle as long.
    const main = await runHost({
      n: calls + 5,
      host: true,
      floors: labFloor.all.map(({ port, lab }) => ({ port, lab })),
    });
    const thaws = [...lab.pools].flatMap(([name, p]) =>
      p.snapshot().thawMs.slice((thawsBefore.get(name) ?? 0) + 5),
    );
    const throttle1 = throttlingNow();
    const rows = main.host.slice(5).map((h, i) => ({
      client: h.client,
      db: h.db,
      duration: main.durations[i + 5],
      direct: main.direct[i + 5],
    }));
    const labFloorP50 = p50(main.floors[0].slice(5));
    const labFloorThaws = labFloor.all[0].thawMs.slice(5);
    const unshared = labFloor.unshared;
    await labFloor.close();
    // The idle floors after, in turn with each other, as they have always been measured.
    idleFloors = await startFloors(gapMs, id, idleVariants);
    const idle = await overheadClient.run({
      n: calls + 5,
      host: false,
      floors: idleFloors.all.map(({ port, lab }) => ({ port, lab })),
    });
    const [floorP50, floorLambdaNodeP50, floorSizedP50] = idle.floors.map((xs) => p50(xs.slice(5)));
    const clientP50 = p50(rows.map((r) => r.client));
    const directP50 = p50(rows.map((r) => r.direct));
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
      labFloorP50,
      labFloorThawP50: labFloorThaws.length > 0 ? p50(labFloorThaws) : undefined,
      labFloorUnshared: share
        ? unshared
        : (lab.memoryModel.reason ?? 'the lab runs its environments without cgroups'),
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
    overheadClient?.close();
    await labFloor?.close();
    await idleFloors?.close();
    direct.destroy();
  }
}

/** The overhead client's process (overhead-client.ts): one run at a time. */
interface OverheadClientProcess {
  run(run: Omit<OverheadRun, 'type'>): Promise<OverheadRunResult>;
  close(): void;
}

async function startOverheadClient(config: OverheadClientConfig): Promise<OverheadClientProcess> {
  const child = fork(join(import.meta.dirname, 'overhead-client.ts'), [], {
    // The bench's process has printed the SDK's Node-version warning once already.
    execArgv: ['--import', 'tsx', '--no-warnings'],
  });
  let exit: ((e: Error) => void) | undefined;
  child.once('exit', (code, signal) => exit?.(new Error(`the overhead client exited (${signal ?? code})`)));
  const ask = <T>(message: object) =>
    new Promise<T>((resolve, reject) => {
      exit = reject;
      child.once('message', (m: { type: string; message?: string }) => {
        exit = undefined;
        if (m.type === 'error') reject(new Error(`the overhead client: ${m.message}`));
        else resolve(m as T);
      });
      child.send(message);
    });
  try {
    await ask(config);
  } catch (e) {
    child.kill();
    throw e;
  }
  return {
    run: (run) => ask<OverheadRunResult>({ type: 'run', ...run }),
    close: () => child.kill(),
  };
}

/** Any key signs the lab floor's calls: the floor checks no signature (nothing secret). */
const FLOOR_CALLER = { accessKeyId: 'AKIDLABFLOOR', secretAccessKey: 'not-checked', region: 'us-east-1' };

/**
 * One relay floor: a bare HTTP server in this process (where the lab's API server runs too) that
 * hands each request to a child process over IPC: the same hops as the host, none of its work.
 * The child waits gapMs inside each call (relay-floor.mjs, the idle floors), or is the lab's own
 * runtime worker running the function's handler (the lab floor), and answers with its own time,
 * so the call's extra is what the hops cost.
 */
interface Floor {
  /** Where its HTTP server listens on 127.0.0.1. */
  readonly port: number;
  /** The lab floor (called with the host's signed GET, see labFloorCall) rather than an idle one. */
  readonly lab: boolean;
  call(): Promise<number>;
  /** Each call's thaw of its frozen child (the freezer write), ms, when the variant freezes. */
  readonly thawMs: readonly number[];
  /** Resolves once the child is gone and its cgroup removed. */
  close(): Promise<void>;
}

/** What a floor's child answers: the relay-floor.mjs child's, or the runtime worker's. */
type ChildAnswer =
  | { ms: number; response: { statusCode: number } }
  | { type: 'result'; durationMs: number; response?: ProxyResult }
  | { type: 'error'; durationMs: number }
  | { type: 'ready' }
  | { type: 'init-error'; error: { errorMessage?: string } };

/** What the GET's handler returns (a Lambda proxy result), as far as the floor relays it. */
interface ProxyResult {
  readonly statusCode?: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** The child's own time and its handler's status (500 for a handler that threw) and response. */
function readAnswer(m: ChildAnswer): { ms: number; status: number; response?: ProxyResult } {
  if ('ms' in m) return { ms: m.ms, status: m.response.statusCode };
  if (m.type === 'result')
    return { ms: m.durationMs, status: m.response?.statusCode ?? 500, response: m.response };
  if (m.type === 'error') return { ms: m.durationMs, status: 500 };
  return { ms: 0, status: 500 };
}

async function startFloor(
  gapMs: number,
  govId: string,
  variant: FloorVariant,
  cgroups: { readonly tree: CgroupTree; readonly hostCores: number } | undefined,
): Promise<Floor> {
  const h = variant.handler;
  const node = variant.node ?? process.execPath;
  const share = variant.share;
  const memoryMb = share?.memoryMb ?? 128;
  // The lab floor's child is the lab's own runtime worker: its argv, as the pool starts one.
  const [modulePath, args] = h
    ? [
        RUNTIME_WORKER,
        [h.file, h.exportName, h.env.AWS_LAMBDA_FUNCTION_NAME ?? 'relay-floor', String(memoryMb)],
      ]
    : [join(import.meta.dirname, 'relay-floor.mjs'), [String(gapMs), variant.sized ? 'sized' : '']];
  const cgroup = share && cgroups ? cgroups.tree.create('relay-floor') : undefined;
  if (cgroup && share && cgroups) cgroup.setCpu(invokeCpuLimit(share.memoryMb, cgroups.hostCores));
  const freezes = Boolean(variant.freeze && cgroup?.canFreeze);
  const nodeArgs = share ? heapFlags(share.memoryMb) : [];
  const env = fork(modulePath, args, {
    // Read and dropped, as a host must read what its environments print.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    ...(h ? { env: h.env } : {}),
    // As the lab starts an environment: a shell joins the cgroup, then becomes node.
    ...(cgroup
      ? { execPath: '/bin/sh', execArgv: ['-c', joinCgroupScript(cgroup.procsFiles), node, ...nodeArgs] }
      : { execPath: node, execArgv: nodeArgs }),
  });
  env.stdout?.resume();
  env.stderr?.resume();
  const exited = new Promise<void>((resolve) => env.once('exit', () => resolve()));
  let frozen = false;
  let freezeTimer: NodeJS.Timeout | undefined;
  const close = async () => {
    clearTimeout(freezeTimer);
    // A frozen process takes no signal until it runs again.
    if (cgroup) await cgroup.setFrozen(false);
    env.kill();
    await exited;
    if (cgroup && cgroups) await cgroups.tree.release(cgroup).catch(() => {});
  };
  // Ready once it has loaded (the worker imports the bundle); a bundle that cannot load fails it.
  await new Promise<void>((resolve, reject) => {
    env.once('message', (m: ChildAnswer) => {
      if ('type' in m && m.type === 'init-error')
        reject(
          new Error(`a relay floor's function could not load: ${m.error.errorMessage ?? 'unknown error'}`),
        );
      else resolve();
    });
    void exited.then(() => reject(new Error(`a relay floor's child (${node}) exited before it was ready`)));
  }).catch(async (e) => {
    await close();
    throw e;
  });
  // The sized variant and the worker get a message shaped and sized like the lab's invoke of a
  // signed GET; the worker's deadline is each call's own, as the host's is.
  const invoke = variant.sized || h ? invokeLikeMessage(govId) : { type: 'invoke' };
  const message = h ? () => ({ ...invoke, deadlineMs: Date.now() + 10_000 }) : () => invoke;
  const answer = (res: http.ServerResponse, ms: number, status: number, response?: ProxyResult) => {
    if (h) {
      // The handler's own response, as the host relays it, with the handler's time beside it.
      const body = response?.body ?? '';
      res.writeHead(status, {
        ...response?.headers,
        'content-length': Buffer.byteLength(body),
        [HANDLER_MS_HEADER]: String(ms),
      });
      res.end(body);
      return;
    }
    const body = JSON.stringify({ ms, status });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
  // A child that died mid-call still gets its caller an answer (a 502 it refuses), never a hang.
  let gone = false;
  const pending = new Set<http.ServerResponse>();
  void exited.then(() => {
    gone = true;
    for (const res of pending) answer(res, 0, 502);
    pending.clear();
  });
  const thawMs: number[] = [];
  const relay = (res: http.ServerResponse) => {
    if (gone) return answer(res, 0, 502);
    pending.add(res);
    env.once('message', (m: ChildAnswer) => {
      pending.delete(res);
      const a = readAnswer(m);
      answer(res, a.ms, a.status, a.response);
      // Frozen between calls as the host freezes its environments: after the same wait, and
      // thawed by the same synchronous write before the next message.
      if (freezes && cgroup)
        freezeTimer = setTimeout(() => {
          frozen = true;
          void cgroup.setFrozen(true);
        }, FREEZE_AFTER_MS).unref();
    });
    clearTimeout(freezeTimer);
    if (frozen && cgroup) {
      frozen = false;
      const t = cgroup.thawForInvoke();
      if (t !== undefined) thawMs.push(t);
    }
    env.send(message());
  };
  const server = http.createServer((req, res) => {
    req.resume();
    // The lab floor gets the host's bodiless GET and, as the host does, does not wait for its end.
    if (h) relay(res);
    else req.on('end', () => relay(res));
  });
  const agent = new http.Agent({ keepAlive: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // The lab floor is called as the host is, by a signing client (it checks no signature).
  const client = h ? new LabClient(`http://127.0.0.1:${port}`, FLOOR_CALLER, FLOOR_CALLER.region) : undefined;
  return {
    port,
    lab: h !== undefined,
    call: () => (client ? labFloorCall(client, `/floor/${govId}`) : floorCall(port, agent)),
    thawMs,
    close: () => {
      client?.close();
      agent.destroy();
      server.close();
      return close();
    },
  };
}

export interface FloorVariant {
  /** The child's Node; undefined: this process's Node, as the floor has always run. */
  readonly node?: string;
  /** Messages the size and shape of the lab's invoke and result instead of a few bytes. */
  readonly sized?: boolean;
  /**
   * The function's own handler, run by the lab's runtime worker (runtime-worker.mjs) as the
   * floor's child, instead of relay-floor.mjs's idle wait.
   */
  readonly handler?: {
    readonly file: string;
    readonly exportName: string;
    readonly env: Record<string, string>;
  };
  /** The child in a cgroup of this memory's CPU share, with its heap flags, as an environment. */
  readonly share?: { readonly memoryMb: number };
  /** Frozen between calls (cgroup freezer), as the lab freezes an idle environment; needs share. */
  readonly freeze?: boolean;
}

/** An invoke message like the host's for a signed GET through the API (about 2 KB of JSON). */
function invokeLikeMessage(govId: string): object {
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
      path: `/dynamodb/keepalive-on/person/${govId}`,
      httpMethod: 'GET',
      headers,
      multiValueHeaders,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: { govId },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        protocol: 'HTTP/1.1',
        httpMethod: 'GET',
        identity: { sourceIp: '127.0.0.1' },
        path: `/lab/dynamodb/keepalive-on/person/${govId}`,
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

export interface Floors {
  readonly all: readonly Floor[];
  /** Why the variants that asked for a CPU share ran without one; undefined when they had it. */
  readonly unshared: string | undefined;
  close(): Promise<void>;
}

/** Starts one floor per variant, the ones with a CPU share in a cgroup tree of the bench's own. */
export async function startFloors(
  gapMs: number,
  govId: string,
  variants: readonly FloorVariant[],
): Promise<Floors> {
  const opened = variants.some((v) => v.share) ? await openCgroups() : undefined;
  const cgroups = opened?.tree ? { tree: opened.tree, hostCores: opened.model.hostCores } : undefined;
  const all: Floor[] = [];
  // Once, however often asked (the caller's finally asks again).
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      await Promise.all(all.map((f) => f.close()));
      await opened?.tree?.remove().catch(() => {});
    })();
    return closed;
  };
  try {
    for (const v of variants) all.push(await startFloor(gapMs, govId, v, cgroups));
  } catch (e) {
    await close();
    throw e;
  }
  return { all, unshared: opened && !opened.tree ? opened.model.reason : undefined, close };
}
