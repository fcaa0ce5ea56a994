/**
 * The news site's stories (news-top10), written straight into each engine before the measured
 * phases, as the article's init scripts loaded its 7,001 stories: a batch call per engine with
 * its own client (DynamoDB BatchWriteItem, one Redis pipeline, one PostgreSQL INSERT over arrays),
 * never through the API, so nothing of it is counted. Each story is viewed a random number of
 * times ("I scored each article randomly"), seeded, so every target holds the same data set and
 * the top 10 reads a full index. The records are the lab's Persons in the store's own layout
 * (lambda/shared/*-store.ts): what the view and top10 functions read and write.
 */
import {
  BatchWriteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Target } from '../core/lab-functions';
import { seededUniform } from '../core/seeded-uniform.mjs';
import { PERSON_FIELDS, type Person } from '../lambda/shared/person';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../targets/dynamodb/create-table';
import {
  CREATED_AT,
  PERSON_KEY,
  SECTION,
  SECTION_VALUE,
  TOP_STORIES_INDEX,
  VIEWS,
} from '../targets/dynamodb/schema';
import { byTypeKey, personKey, VIEWS_KEY } from '../targets/redis/store';

export interface SeedStory {
  readonly person: Person;
  readonly views: number;
  /** creation time, epoch ms */
  readonly createdAt: number;
}

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

function check(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('seeding aborted');
}

function personJson(p: Person): string {
  const out: Record<string, string> = {};
  for (const f of PERSON_FIELDS) {
    const v = p[f];
    if (v !== undefined) out[f] = v;
  }
  return JSON.stringify(out);
}

/** DynamoDB: the table holding the TopStories index, 25 items a BatchWriteItem, unprocessed ones sent again. */
export async function seedDynamoDb(
  endpoint: string,
  tables: readonly string[],
  stories: readonly SeedStory[],
  signal: AbortSignal,
): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    let table: string | undefined;
    for (const name of tables) {
      const d = await client.send(new DescribeTableCommand({ TableName: name }), { abortSignal: signal });
      if (d.Table?.GlobalSecondaryIndexes?.some((g) => g.IndexName === TOP_STORIES_INDEX)) table = name;
    }
    if (!table) throw new Error(`no table with the ${TOP_STORIES_INDEX} index among ${tables.join(', ')}`);
    const requests: WriteRequest[] = stories.map((s) => {
      const item: Record<string, { S: string } | { N: string }> = {};
      for (const f of PERSON_FIELDS) {
        const v = s.person[f];
        if (v !== undefined) item[f] = { S: v };
      }
      item[CREATED_AT] = { N: String(s.createdAt) };
      item[SECTION] = { S: SECTION_VALUE };
      item[VIEWS] = { N: String(s.views) };
      return { PutRequest: { Item: item } };
    });
    if (!requests.every((r) => r.PutRequest?.Item?.[PERSON_KEY])) throw new Error('a story without its key');
    for (let i = 0; i < requests.length; i += 25) {
      let batch = requests.slice(i, i + 25);
      while (batch.length > 0) {
        check(signal);
        const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: batch } }), {
          abortSignal: signal,
        });
        batch = out.UnprocessedItems?.[table] ?? [];
      }
    }
  } finally {
    client.destroy();
  }
}

/** Redis: each story's JSON, its by-type entry and its view count, one pipeline of 1,000 stories at a time. */
export async function seedRedis(
  endpoint: string,
  password: string,
  stories: readonly SeedStory[],
  signal: AbortSignal,
): Promise<void> {
  const url = new URL(endpoint);
  const client = new Redis({
    host: url.hostname,
    port: Number(url.port),
    username: 'default',
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    for (let i = 0; i < stories.length; i += 1000) {
      check(signal);
      const p = client.pipeline();
      for (const s of stories.slice(i, i + 1000)) {
        p.set(personKey(s.person.GovId), personJson(s.person));
        p.zadd(byTypeKey(s.person.GovIdType), s.createdAt, s.person.GovId);
        p.zadd(VIEWS_KEY, s.views, s.person.GovId);
      }
      for (const [error] of (await p.exec()) ?? []) if (error) throw error;
    }
  } finally {
    client.disconnect();
  }
}

/** PostgreSQL (the DSQL target's engine): one INSERT over arrays per 1,000 stories, on the server's own socket. */
export async function seedPostgres(
  client: pg.Client,
  stories: readonly SeedStory[],
  signal: AbortSignal,
): Promise<void> {
  for (let i = 0; i < stories.length; i += 1000) {
    check(signal);
    const part = stories.slice(i, i + 1000);
    const col = (f: (s: SeedStory) => string | number | null) => part.map(f);
    await client.query(
      `INSERT INTO person (govid, first_name, last_name, dob, govid_type, address, created_at, views)
SELECT * FROM unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::date[], $5::varchar[], $6::varchar[], $7::timestamptz[], $8::bigint[])
ON CONFLICT (govid) DO UPDATE SET views = EXCLUDED.views`,
      [
        col((s) => s.person.GovId),
        col((s) => s.person.FirstName),
        col((s) => s.person.LastName),
        col((s) => s.person.DOB),
        col((s) => s.person.GovIdType),
        col((s) => s.person.Address ?? null),
        col((s) => new Date(s.createdAt).toISOString()),
        col((s) => s.views),
      ],
    );
  }
}

/** What seedLabStories needs of a running lab (local/lab.ts RunningLab). */
export interface SeedableLab {
  readonly targets: ReadonlyMap<
    Target,
    { readonly database: { readonly endpoint: string; readonly tables: readonly string[] } }
  >;
  clientEnv(): Record<string, string>;
}

/**
 * Seeds `count` stories into each of `targets` the lab runs (those without a top 10 are left
 * alone), bounded by SEED_TIMEOUT_MS; throws when one fails. Returns each target's seconds.
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
    if (!db) continue;
    const t0 = performance.now();
    if (target === 'dynamodb') await seedDynamoDb(db.endpoint, db.tables, stories, signal);
    else if (target === 'redis') {
      const url = lab.clientEnv().REDIS_URL;
      if (!url) throw new Error('the lab gives no REDIS_URL');
      await seedRedis(db.endpoint, decodeURIComponent(new URL(url).password), stories, signal);
    } else if (target === 'dsql') {
      // postgresql://postgres@/postgres?host=<socketDir>: the superuser on the private socket.
      const client = new pg.Client({ connectionString: db.endpoint });
      await client.connect();
      try {
        await seedPostgres(client, stories, signal);
      } finally {
        await client.end();
      }
    } else continue;
    out[target] = (performance.now() - t0) / 1000;
    opts.log(
      `${target}: ${count} stories seeded straight into the engine in ${out[target]?.toFixed(1)} s (not counted)`,
    );
  }
  return out;
}
