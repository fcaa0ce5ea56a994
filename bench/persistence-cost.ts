/**
 * What the run data costs per request (bench section 11, `--only-persistence`): two labs side by
 * side, one as the lab runs (every engine on files in the run data, so a restart loses nothing)
 * and one with `inMemory` (as the engines ran before: memory only, PostgreSQL without
 * synchronous commit). Same targets, same network profile and seed, so both labs draw the same
 * service times in the same order. Warm GETs (and creates, where persistence does its work)
 * take turns between the labs in ABBA rounds, so drift on a shared machine falls on both.
 * The figure is the handler's own dbMs (the timing block), p50 per target and lab.
 */
import { LOCAL_CALLER, type RunningLab, startLab } from '../local/lab';
import { median } from './init-over-empty';
import { LabClient } from './lab-client';

export interface PersistenceRow {
  readonly target: string;
  readonly getOnMs: number;
  readonly getOffMs: number;
  readonly createOnMs: number;
  readonly createOffMs: number;
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
  readonly get: Map<string, number[]>;
  readonly create: Map<string, number[]>;
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
          for (let i = 0; i < perRound; i++) {
            side.get.get(target)?.push(await dbMs(side.client, 'GET', `${base}/${id}`));
            side.create
              .get(target)
              ?.push(await dbMs(side.client, 'POST', base, person(`${id}-${round}-${n++}`)));
          }
        }
      }
    }
    const [on, off] = sides;
    return opts.targets.map((target) => ({
      target,
      getOnMs: median(on.get.get(target) ?? []),
      getOffMs: median(off.get.get(target) ?? []),
      createOnMs: median(on.create.get(target) ?? []),
      createOffMs: median(off.create.get(target) ?? []),
    }));
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.lab.stop();
    }
  }
}

export function formatPersistenceRows(rows: readonly PersistenceRow[]): string[] {
  const pct = (on: number, off: number) => `${(((on - off) / off) * 100).toFixed(1)}%`;
  return rows.map(
    (r) =>
      `   ${r.target.padEnd(9)} get dbMs on ${r.getOnMs.toFixed(3)}  off ${r.getOffMs.toFixed(3)}  ${(r.getOnMs - r.getOffMs).toFixed(3)} (${pct(r.getOnMs, r.getOffMs)})   create dbMs on ${r.createOnMs.toFixed(3)}  off ${r.createOffMs.toFixed(3)}  ${(r.createOnMs - r.createOffMs).toFixed(3)} (${pct(r.createOnMs, r.createOffMs)})`,
  );
}
