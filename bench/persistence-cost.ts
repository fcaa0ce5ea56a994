/**
 * What the run data costs per request (bench section 11, `--only-persistence`): two labs side by
 * side, one as the lab runs (every engine on files in the run data, so a restart loses nothing)
 * and one with `inMemory` (as the engines ran before: memory only, PostgreSQL without
 * synchronous commit). Same targets, same network profile and seed, so both labs draw the same
 * service times in the same order. Warm GETs (and creates, where persistence does its work)
 * take turns between the labs in ABBA rounds, so drift on a shared machine falls on both.
 * The figure is the handler's own dbMs (the timing block), p50 per target and lab, and the
 * difference as the median over the rounds of each round's p50 on minus p50 off.
 */
import { LOCAL_CALLER, type RunningLab, startLab } from '../local/lab';
import { median } from './init-over-empty';
import { LabClient } from './lab-client';

export interface PersistenceRow {
  readonly target: string;
  readonly getOnMs: number;
  readonly getOffMs: number;
  /** Per round, p50 on minus p50 off: the median and the spread of the rounds. */
  readonly getDeltaMs: { readonly median: number; readonly min: number; readonly max: number };
  readonly createOnMs: number;
  readonly createOffMs: number;
  readonly createDeltaMs: { readonly median: number; readonly min: number; readonly max: number };
}

export interface PersistenceOptions {
  readonly targets: readonly string[];
  /** Timed GETs per target and lab (as many creates), split over the rounds. */
  readonly calls: number;
  readonly rounds: number;
  readonly log: (line: string) => void;
}

function person(govId: string) {
  return { GovId: govId, FirstName: 'Bench', LastName: 'Mark', DOB: '1990-01-01', GovIdType: 'Passport' };
}

interface Side {
  readonly lab: RunningLab;
  readonly client: LabClient;
  /** Per target, per round: each request's dbMs. */
  readonly get: Map<string, number[][]>;
  readonly create: Map<string, number[][]>;
}

async function dbMs(
  client: LabClient,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<number> {
  const res = await client.request(method, path, body);
  const expected = method === 'GET' ? 200 : 201;
  if (res.status !== expected)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.timing?.dbMs ?? Number.NaN;
}

export async function persistenceCost(opts: PersistenceOptions): Promise<PersistenceRow[]> {
  const context = { targets: opts.targets.join(',') };
  const sides: Side[] = [];
  try {
    for (const inMemory of [false, true]) {
      opts.log(
        `starting the lab ${inMemory ? 'with its engines in memory' : 'as it runs (run data on files)'} ...`,
      );
      const lab = await startLab({ port: 0, context, inMemory, seed: 1 });
      sides.push({
        lab,
        client: new LabClient(lab.url, LOCAL_CALLER, LOCAL_CALLER.region),
        get: new Map(),
        create: new Map(),
      });
    }
    const perRound = Math.max(1, Math.floor(opts.calls / opts.rounds));
    for (const target of opts.targets) {
      const base = `/${target}/keepalive-on/person`;
      const id = `PERSIST-${target}`;
      for (const side of sides) {
        await dbMs(side.client, 'POST', base, person(id));
        // Warm: the environment, its connection, the engine's caches.
        for (let i = 0; i < 30; i++) await dbMs(side.client, 'GET', `${base}/${id}`);
        side.get.set(target, []);
        side.create.set(target, []);
      }
      let n = 0;
      for (let round = 0; round < opts.rounds; round++) {
        const order = round % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          const gets: number[] = [];
          const creates: number[] = [];
          for (let i = 0; i < perRound; i++) {
            gets.push(await dbMs(side.client, 'GET', `${base}/${id}`));
            creates.push(await dbMs(side.client, 'POST', base, person(`${id}-${round}-${n++}`)));
          }
          side.get.get(target)?.push(gets);
          side.create.get(target)?.push(creates);
        }
      }
    }
    const [on, off] = sides;
    const all = (rounds: number[][] | undefined) => median((rounds ?? []).flat());
    const delta = (a: number[][] | undefined, b: number[][] | undefined) => {
      const diffs = (a ?? []).map((r, i) => median(r) - median(b?.[i] ?? []));
      return { median: median(diffs), min: Math.min(...diffs), max: Math.max(...diffs) };
    };
    return opts.targets.map((target) => ({
      target,
      getOnMs: all(on.get.get(target)),
      getOffMs: all(off.get.get(target)),
      getDeltaMs: delta(on.get.get(target), off.get.get(target)),
      createOnMs: all(on.create.get(target)),
      createOffMs: all(off.create.get(target)),
      createDeltaMs: delta(on.create.get(target), off.create.get(target)),
    }));
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.lab.stop();
    }
  }
}

export function formatPersistenceRows(rows: readonly PersistenceRow[]): string[] {
  const f = (n: number) => n.toFixed(3);
  const d = (x: PersistenceRow['getDeltaMs'], off: number) =>
    `${f(x.median)} (${((x.median / off) * 100).toFixed(1)}%; rounds ${f(x.min)}..${f(x.max)})`;
  return rows.map(
    (r) =>
      `   ${r.target.padEnd(9)} get on ${f(r.getOnMs)}  off ${f(r.getOffMs)}  on - off ${d(r.getDeltaMs, r.getOffMs)}   create on ${f(r.createOnMs)}  off ${f(r.createOffMs)}  on - off ${d(r.createDeltaMs, r.createOffMs)}`,
  );
}
