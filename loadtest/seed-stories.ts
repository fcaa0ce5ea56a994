/**
 * The news site's stories (news-top10), written straight into each engine before the measured
 * phases, as the article's init scripts loaded its 7,001 stories: each target that serves a
 * top 10 writes them in batches with its own client (LocalDatabase.seedStories, in its folder),
 * never through the API, so nothing of it is counted. Each story is viewed a random number of
 * times ("I scored each article randomly"), seeded, so every target holds the same data set and
 * the top 10 reads a full index. The records are the lab's Persons in the store's own layout
 * (targets/<name>/store.ts): what the view and top10 functions read and write.
 */
import type { Target } from '../core/lab-functions';
import { seededUniform } from '../core/seeded-uniform.mjs';
import type { SeedStory } from '../local/targets/seed-story';

export type { SeedStory };

/** The GovIdType of every story: one category, as the article's one section. */
export const STORY_TYPE = 'Story';
/** Views are drawn from 1 to this many. */
export const MAX_VIEWS = 10_000;
/** The whole seeding's bound: an engine that stalls fails the step instead of hanging it. @default */
export const SEED_TIMEOUT_MS = 180_000;

/** `count` stories, the same for the same seed. */
export function makeStories(count: number, seed = 1): SeedStory[] {
  const next = seededUniform(seed);
  const start = Date.UTC(2021, 0, 1);
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(5, '0');
    return {
      person: {
        GovId: `STORY-${n}`,
        FirstName: `Story${n}`,
        LastName: 'News',
        DOB: '2021-01-01',
        GovIdType: STORY_TYPE,
        Address: `Section news, story ${n}`,
      },
      views: 1 + Math.floor(next() * MAX_VIEWS),
      createdAt: start + i * 1000,
    };
  });
}

/** The stories' top 10, most viewed first (ties by GovId, as no store promises an order among them). */
export function expectedTop(stories: readonly SeedStory[], n = 10): SeedStory[] {
  return [...stories]
    .sort((a, b) => b.views - a.views || a.person.GovId.localeCompare(b.person.GovId))
    .slice(0, n);
}

/** What seedLabStories needs of a running lab (local/lab.ts RunningLab). */
export interface SeedableLab {
  readonly targets: ReadonlyMap<
    Target,
    {
      readonly database: {
        seedStories?(stories: readonly SeedStory[], signal: AbortSignal): Promise<void>;
      };
    }
  >;
}

/**
 * Seeds `count` stories into each of `targets` the lab runs (those whose database cannot seed
 * them are left alone), bounded by SEED_TIMEOUT_MS; throws when one fails. Returns each target's seconds.
 */
export async function seedLabStories(
  lab: SeedableLab,
  targets: readonly Target[],
  count: number,
  opts: { readonly seed?: number; readonly log: (line: string) => void; readonly signal?: AbortSignal },
): Promise<Partial<Record<Target, number>>> {
  const stories = makeStories(count, opts.seed ?? 1);
  const signal = AbortSignal.any([
    AbortSignal.timeout(SEED_TIMEOUT_MS),
    ...(opts.signal ? [opts.signal] : []),
  ]);
  const out: Partial<Record<Target, number>> = {};
  for (const target of targets) {
    const db = lab.targets.get(target)?.database;
    if (!db?.seedStories) continue;
    const t0 = performance.now();
    await db.seedStories(stories, signal);
    out[target] = (performance.now() - t0) / 1000;
    opts.log(
      `${target}: ${count} stories seeded straight into the engine in ${out[target]?.toFixed(1)} s (not counted)`,
    );
  }
  return out;
}
