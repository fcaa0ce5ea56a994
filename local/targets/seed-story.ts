/**
 * The news site's stories as a target seeds them (LocalDatabase.seedStories): the record and
 * its view count and creation time, written by the target's own client before the measured
 * phases (loadtest/seed-stories.ts makes them).
 */
import { PERSON_FIELDS, type Person } from '../../lambda/shared/person';

export interface SeedStory {
  readonly person: Person;
  readonly views: number;
  /** creation time, epoch ms */
  readonly createdAt: number;
}

/** Throws the abort's reason once `signal` aborts: a seeding checks it between batches. */
export function throwIfSeedAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('seeding aborted');
}

/** The Person's fields as the stores write them as JSON (absent fields left out). */
export function personJson(p: Person): string {
  const out: Record<string, string> = {};
  for (const f of PERSON_FIELDS) {
    const v = p[f];
    if (v !== undefined) out[f] = v;
  }
  return JSON.stringify(out);
}
