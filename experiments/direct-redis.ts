/**
 * The histogram article's own benchmark: a client straight to the database, no API and no
 * Lambda, with N connections each running one scenario back to back for a fixed time, every
 * request's latency in an HDR histogram. The article ran a Go client on EC2 beside Lambda Store;
 * here a Redis client in the experiment's process reaches the lab's Redis through its network
 * model (TLS, the profile's round trip and service time), so the ladders compare with the
 * article's like for like. Each scenario runs on its own: insert into an empty database; read,
 * overwrite and update after the article's 1,000 inserts.
 */
import { readFileSync } from 'node:fs';
import { seededUniform } from '../core/seeded-uniform.mjs';
import { HISTOGRAM_PERCENTILES, type HistogramOperation } from '../report/article-figures';
import { LatencyHistogram } from '../runs/latency-histogram';
import type { DirectRedisPlan, DirectRedisView, DirectScenarioResult } from './types';

export interface DirectRedisOptions {
  readonly plan: DirectRedisPlan;
  readonly lab?: {
    readonly profile?: string;
    readonly rttMs?: number;
    readonly rttByTarget?: Readonly<Partial<Record<string, number>>>;
    readonly seed?: number;
  };
  readonly signal?: AbortSignal;
  readonly log: (line: string) => void;
}

/** The article's Product struct: 12 fields, stored as one Redis hash. */
export function product(id: number, version: number): Record<string, string> {
  return {
    pid: String(id),
    creation_time: String(1_590_000_000_000 + id),
    update_time: String(1_590_000_000_000 + id + version),
    name: `Product ${id}`,
    description: `A product of the benchmark, number ${id}, version ${version}`,
    category: `category-${id % 20}`,
    count: String(id * 7 + version),
    price: String((id % 1000) / 10 + 0.99),
    seller: `seller-${id % 50}`,
    seller_id: String(id % 50),
    country: 'Ireland',
    city: 'Dublin',
  };
}

const KEY = (id: number) => `product:${id}`;

/** One request of a scenario, as the article's benchmark methods made it. */
type Command = (client: import('ioredis').Redis, pick: () => number, next: () => number) => Promise<unknown>;

const COMMANDS: Readonly<Record<HistogramOperation, Command>> = {
  // All fields of a random one of the inserted objects.
  get: (c, pick) => c.hgetall(KEY(pick())),
  // A unique object into the database.
  create: (c, _pick, next) => {
    const id = next();
    return c.hset(KEY(id), product(id, 0));
  },
  // Every field of a random object, new values.
  overwrite: (c, pick, next) => {
    const id = pick();
    return c.hset(KEY(id), product(id, next()));
  },
  // A few fields of a random object.
  update: (c, pick, next) => {
    const v = next();
    return c.hset(KEY(pick()), { update_time: String(1_600_000_000_000 + v), count: String(v) });
  },
};

export async function runDirectRedis(o: DirectRedisOptions): Promise<Omit<DirectRedisView, 'wallS'>> {
  const { Redis } = await import('ioredis');
  const { startLab } = await import('../local/lab');
  const lab = await startLab({
    port: 0,
    ...o.lab,
    context: { targets: 'redis', keepAlive: 'on' },
    log: (line) => {
      if (line.startsWith('warning')) o.log(line);
    },
  });
  try {
    return await runScenarios(o, lab, Redis);
  } finally {
    await lab.stop();
  }
}

async function runScenarios(
  o: DirectRedisOptions,
  lab: import('../local/lab').RunningLab,
  Redis: typeof import('ioredis').Redis,
): Promise<Omit<DirectRedisView, 'wallS'>> {
  const url = lab.clientEnv().REDIS_URL;
  const ca = readFileSync(lab.caCertPath);
  const connect = async () => {
    const c = new Redis(url, {
      tls: { ca },
      lazyConnect: true,
      connectTimeout: 10_000,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  const results: DirectScenarioResult[] = [];
  const admin = await connect();
  try {
    for (const level of o.plan.levels) {
      for (const op of o.plan.operations) {
        if (o.signal?.aborted) break;
        // Each scenario on its own: an empty database, then the article's inserts for all but insertion.
        await admin.flushdb();
        const seeded = op === 'create' ? 0 : o.plan.seedRecords;
        if (seeded > 0) {
          const p = admin.pipeline();
          for (let id = 0; id < seeded; id++) p.hset(KEY(id), product(id, 0));
          await p.exec();
        }
        const clients = await Promise.all(Array.from({ length: level }, connect));
        const random = seededUniform(o.plan.seed + level * 10 + o.plan.operations.indexOf(op));
        const pick = () => Math.floor(random() * seeded);
        let counter = seeded;
        const next = () => counter++;
        const histogram = new LatencyHistogram();
        const ends = Date.now() + o.plan.durationS * 1000;
        let errors = 0;
        const worker = async (c: import('ioredis').Redis) => {
          while (Date.now() < ends && !o.signal?.aborted) {
            const t0 = performance.now();
            try {
              await COMMANDS[op](c, pick, next);
              histogram.record(performance.now() - t0);
            } catch {
              errors++;
            }
          }
        };
        const started = Date.now();
        await Promise.all(clients.map(worker));
        const elapsedS = (Date.now() - started) / 1000;
        await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
        const count = histogram.count;
        const ladderMs = histogram.valuesAt(HISTOGRAM_PERCENTILES);
        results.push({ op, level, count, errors, perMinute: (count / elapsedS) * 60, ladderMs });
        o.log(
          `  direct ${op} x${level}: ${count} requests, ${errors} errors, p50 ${ladderMs[0]?.toFixed(3)} ms, p99.22 ${ladderMs[4]?.toFixed(3)} ms, ${Math.round((count / elapsedS) * 60)}/min`,
        );
      }
    }
  } finally {
    admin.disconnect();
  }
  return { plan: o.plan, profile: lab.profile.name, results };
}
