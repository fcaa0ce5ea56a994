/**
 * The two local DynamoDB engines side by side, as `npm run bench -- --only-engines` prints them:
 *   start-up  from spawning the engine to its first answered request (ListTables), `rounds` times
 *             each, the engines taking turns so drift on a shared machine falls on both
 *   requests  PutItem, GetItem (consistent) and Query on the lab's index, each timed on one
 *             kept-alive connection, straight to the engine (no network model: this is the
 *             engine's own cost), the engines taking turns in blocks of `block` requests
 * Printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { labDataDir } from '../local/run-dir';
import { ladderOf } from '../runs/latency-histogram';
import { createTable, type EngineKind, localClientConfig, startEngine } from '../targets/dynamodb/engine';
import { PERSON_TABLE_SCHEMA } from '../targets/dynamodb/person-table';
import { BY_TYPE_INDEX, BY_TYPE_PARTITION } from '../targets/dynamodb/schema';

/**
 * The lab's engines, and dynalite as npm ships it (no conformance layer,
 * targets/dynamodb/dynalite-conformance.mjs): the difference is what that layer costs.
 */
export const BENCH_ENGINES = ['dynalite', 'dynalite-plain', 'dynamodb-local'] as const;
/** `<kind>-files`: the engine on files in the lab's run data, as the lab runs it (no --data). */
export type BenchEngine = EngineKind | 'dynalite-plain' | `${EngineKind}-files`;

interface Started {
  readonly endpoint: string;
  readonly pid: number;
  stop(): Promise<void>;
}

// The same server settings as targets/dynamodb/dynalite-server.mjs, without the conformance layer.
const PLAIN_DYNALITE = `
import dynalite from 'dynalite';
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
server.keepAliveTimeout = 0;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

/**
 * Spawns `script` (plain dynalite unless a test passes another) and waits for the port it
 * prints; rejects, with the child gone, when it exits or prints something else first.
 */
export async function startPlainDynalite(script = PLAIN_DYNALITE): Promise<Started> {
  // Run from the project, so that 'dynalite' resolves to the lab's pinned copy.
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: new URL('..', import.meta.url),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (): Promise<void> => {
    if (ended()) return;
    const exit = once(child, 'exit');
    child.kill('SIGTERM');
    await exit;
  };
  // Waiting for 'data' alone would wait for ever on a child that dies first (no dynalite to import).
  const port = await new Promise<number>((resolve, reject) => {
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      reject(new Error(`plain dynalite exited (${signal ?? `code ${code}`}) before it listened`));
    child.once('error', reject);
    child.once('exit', onExit);
    child.stdout.once('data', (chunk: Buffer) => {
      child.off('exit', onExit);
      child.off('error', reject);
      try {
        resolve((JSON.parse(chunk.toString()) as { port: number }).port);
      } catch {
        reject(new Error(`plain dynalite printed ${JSON.stringify(chunk.toString())} instead of its port`));
      }
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { endpoint: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, stop };
}

async function startOnFiles(kind: EngineKind): Promise<Started> {
  const dataDir = await labDataDir(`bench-${kind}-`);
  const engine = await startEngine({ kind, dataDir });
  return {
    endpoint: engine.endpoint,
    pid: engine.pid,
    stop: async () => {
      await engine.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const start = (kind: BenchEngine): Promise<Started> =>
  kind === 'dynalite-plain'
    ? startPlainDynalite()
    : kind.endsWith('-files')
      ? startOnFiles(kind.slice(0, -'-files'.length) as EngineKind)
      : startEngine({ kind: kind as EngineKind });

export const OPERATIONS = ['put', 'get', 'query'] as const;
export type Operation = (typeof OPERATIONS)[number];

export interface EngineFigures {
  readonly kind: BenchEngine;
  /** Spawn to first answered ListTables, ms, one per round. */
  readonly startupMs: number[];
  /** Per operation: every timed request, ms, warm-up excluded. */
  readonly requestMs: Record<Operation, number[]>;
  /** The engine process's CPU time per request over the whole request phase, ms (Linux /proc). */
  cpuMsPerRequest?: number;
  /** The engine process's peak resident memory, MB (Linux /proc VmHWM). */
  peakRssMb?: number;
}

// /proc/<pid>/stat fields 14 and 15 (utime, stime) in clock ticks; USER_HZ is 100 on Linux.
const TICK_MS = 10;
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}
function peakRssMb(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}

export interface EngineBenchOptions {
  /** @default BENCH_ENGINES */
  readonly kinds?: readonly BenchEngine[];
  /** Start-ups per engine. @default 5 */
  readonly rounds?: number;
  /** Timed requests per engine and operation. @default 2000 */
  readonly requests?: number;
  /** Untimed requests per engine and operation first (the JVM compiles its hot paths). @default 500 */
  readonly warmup?: number;
  /** Requests one engine sends before the other takes its turn. @default 100 */
  readonly block?: number;
  readonly log?: (line: string) => void;
}

const TABLE = 'Person';
const TYPES = ['Passport', 'DriverLicense', 'NationalId', 'ResidencePermit'];

function client(endpoint: string): { client: DynamoDBClient; agent: http.Agent } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const c = new DynamoDBClient({
    ...localClientConfig(endpoint),
    requestHandler: new NodeHttpHandler({ httpAgent: agent }),
    maxAttempts: 1,
  });
  return { client: c, agent };
}

async function startUp(kind: BenchEngine): Promise<number> {
  const t0 = performance.now();
  const engine = await start(kind);
  const { client: c, agent } = client(engine.endpoint);
  try {
    await c.send(new ListTablesCommand({}));
    return performance.now() - t0;
  } finally {
    c.destroy();
    agent.destroy();
    await engine.stop();
  }
}

/** One engine with the lab's table, a kept-alive client, and the next request of each kind. */
class Subject {
  private n = 0;
  private constructor(
    readonly engine: Started,
    private readonly c: DynamoDBClient,
    private readonly agent: http.Agent,
  ) {}

  static async start(kind: BenchEngine): Promise<Subject> {
    const engine = await start(kind);
    await createTable(engine.endpoint, TABLE, PERSON_TABLE_SCHEMA);
    const { client: c, agent } = client(engine.endpoint);
    return new Subject(engine, c, agent);
  }

  /** Sends one request of `op` and returns its time, ms. */
  async once(op: Operation): Promise<number> {
    const i = this.n++;
    const command =
      op === 'put'
        ? new PutItemCommand({
            TableName: TABLE,
            Item: {
              GovId: { S: `BENCH-${i}` },
              FirstName: { S: 'Bench' },
              LastName: { S: 'Mark' },
              DOB: { S: '1990-01-01' },
              GovIdType: { S: TYPES[i % TYPES.length] },
              Address: { S: `${i} Bench Street` },
              CreatedAt: { N: String(Date.now()) },
            },
          })
        : op === 'get'
          ? new GetItemCommand({
              TableName: TABLE,
              Key: { GovId: { S: `BENCH-${i % Math.max(1, this.n)}` } },
              ConsistentRead: true,
            })
          : new QueryCommand({
              TableName: TABLE,
              IndexName: BY_TYPE_INDEX,
              KeyConditionExpression: '#t = :t',
              ExpressionAttributeNames: { '#t': BY_TYPE_PARTITION },
              ExpressionAttributeValues: { ':t': { S: TYPES[i % TYPES.length] } },
              ScanIndexForward: false,
              Limit: 10,
            });
    const t0 = performance.now();
    // The three commands share no input type; each is sent as the SDK sends it in the store.
    await this.c.send(command as PutItemCommand);
    return performance.now() - t0;
  }

  async stop(): Promise<void> {
    this.c.destroy();
    this.agent.destroy();
    await this.engine.stop();
  }
}

export async function dynamodbEngines(opts: EngineBenchOptions = {}): Promise<EngineFigures[]> {
  const kinds = opts.kinds ?? BENCH_ENGINES;
  const rounds = opts.rounds ?? 5;
  const requests = opts.requests ?? 2000;
  const warmup = opts.warmup ?? 500;
  const block = opts.block ?? 100;
  const log = opts.log ?? (() => {});
  const figures = kinds.map(
    (kind): EngineFigures => ({ kind, startupMs: [], requestMs: { put: [], get: [], query: [] } }),
  );

  // One start-up each before timing: the first JVM start reads its jars from disk.
  for (const kind of kinds) await startUp(kind);
  for (let r = 0; r < rounds; r++) {
    for (const f of figures) {
      f.startupMs.push(await startUp(f.kind));
      log(`start-up round ${r + 1}/${rounds}: ${f.kind} ${f.startupMs.at(-1)?.toFixed(0)} ms`);
    }
  }

  const subjects: Subject[] = [];
  try {
    for (const kind of kinds) subjects.push(await Subject.start(kind));
    const cpuBefore = subjects.map((s) => cpuMs(s.engine.pid));
    // Puts first: the gets and queries then read the items they wrote.
    for (const op of OPERATIONS) {
      for (const s of subjects) for (let i = 0; i < warmup; i++) await s.once(op);
      for (let done = 0; done < requests; done += block) {
        const n = Math.min(block, requests - done);
        for (const [k, s] of subjects.entries()) {
          const out = figures[k].requestMs[op];
          for (let i = 0; i < n; i++) out.push(await s.once(op));
        }
      }
      log(`${op}: ${requests} requests per engine done`);
    }
    for (const [k, s] of subjects.entries()) {
      const [before, after] = [cpuBefore[k], cpuMs(s.engine.pid)];
      const sent = OPERATIONS.length * (requests + warmup);
      if (before !== undefined && after !== undefined) figures[k].cpuMsPerRequest = (after - before) / sent;
      figures[k].peakRssMb = peakRssMb(s.engine.pid);
    }
  } finally {
    await Promise.all(subjects.map((s) => s.stop()));
  }
  return figures;
}

const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(2));

/** The table the bench prints: start-up p50/min/max, p50/p99 per operation, engine CPU and memory. */
export function formatEngineFigures(figures: readonly EngineFigures[]): string[] {
  const lines = [
    `   ${'engine'.padEnd(22)}${'start-up p50 (min-max) ms'.padEnd(28)}${OPERATIONS.map((op) => `${op} p50 / p99`.padEnd(18)).join('')}cpu/request  peak RSS MB`,
  ];
  for (const f of figures) {
    const s = ladderOf(f.startupMs);
    const cols = OPERATIONS.map((op) => {
      const l = ladderOf(f.requestMs[op]);
      return `${fmt(l?.p50)} / ${fmt(l?.p99)}`.padEnd(18);
    });
    lines.push(
      `   ${f.kind.padEnd(22)}${`${fmt(s?.p50)} (${fmt(s?.min)}-${fmt(s?.max)})`.padEnd(28)}${cols.join('')}${fmt(f.cpuMsPerRequest).padEnd(13)}${fmt(f.peakRssMb)}`,
    );
  }
  return lines;
}
