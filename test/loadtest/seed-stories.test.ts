/**
 * The news site's stories seeded straight into real engines (loadtest/seed-stories.ts and each
 * target's seed-stories.ts), as
 * news-top10 does before its measured phases: the stores' own top 10 then reads them, in one
 * round trip on Redis, from the TopStories index on DynamoDB.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectedTop, makeStories, type SeedStory, seedLabStories } from '../../loadtest/seed-stories';
import { NEWS_TOP10_FIGURES } from '../../report/article-figures';
import { seedDynamoDb } from '../../targets/dynamodb/seed-stories';
import { dynamoDbStoreFromEnv } from '../../targets/dynamodb/store';
import { type RedisEngine, startRedis } from '../../targets/redis/engine';
import { parseRedisUrl } from '../../targets/redis/secret';
import { seedRedis } from '../../targets/redis/seed-stories';
import { createRedisStore } from '../../targets/redis/store';
import { SHARED_ENGINE_HOOK_MS, tableOfItsOwn } from '../support/shared-engines';
import { sharedTestEngine, type TestEngine } from '../support/test-engine';

const deadline = () => AbortSignal.timeout(60_000);

describe('makeStories', () => {
  it('makes the same stories for the same seed, each with a view count', () => {
    const a = makeStories(50, 7);
    expect(a).toEqual(makeStories(50, 7));
    expect(a).not.toEqual(makeStories(50, 8));
    expect(new Set(a.map((s) => s.person.GovId)).size).toBe(50);
    expect(a.every((s) => Number.isInteger(s.views) && s.views >= 1)).toBe(true);
  });
});

describe('seedLabStories', () => {
  it('asks each target the lab runs to seed, through its database, and leaves those that cannot alone', async () => {
    const seeded: SeedStory[][] = [];
    const lines: string[] = [];
    const lab = {
      targets: new Map([
        [
          'a',
          {
            database: {
              seedStories: async (stories: readonly SeedStory[]) => void seeded.push([...stories]),
            },
          },
        ],
        ['b', { database: {} }],
      ]),
    };
    const out = await seedLabStories(lab, ['a', 'b', 'c'], 20, { seed: 5, log: (l) => lines.push(l) });
    expect(seeded).toEqual([makeStories(20, 5)]);
    expect(Object.keys(out)).toEqual(['a']);
    expect(lines).toEqual([expect.stringMatching(/^a: 20 stories seeded/)]);
  });
});

describe('seeding Redis', () => {
  let engine: RedisEngine;
  beforeAll(async () => {
    engine = await startRedis({ password: 'seed-stories-password' });
  });
  afterAll(async () => {
    await engine?.stop();
  });

  it('writes the article’s 7,001 stories in a few pipelines; the top 10 reads them in one round trip', async () => {
    const stories = makeStories(NEWS_TOP10_FIGURES.stories);
    await seedRedis(engine.endpoint, 'seed-stories-password', stories, deadline());
    const store = createRedisStore({ target: parseRedisUrl(engine.url, 'test'), keepAlive: 'on' });
    try {
      await store.top10(deadline()); // opens the connection
      const before = store.requestsSent();
      const top = await store.top10(deadline());
      expect(store.requestsSent() - before).toBe(1);
      expect(top.map((s) => s.views)).toEqual(expectedTop(stories).map((s) => s.views));
      const byId = new Map(stories.map((s) => [s.person.GovId, s.person]));
      for (const s of top) expect(s.person).toEqual(byId.get(s.person.GovId));
    } finally {
      store.close();
    }
  });
});

describe('seeding DynamoDB (dynalite)', () => {
  const TABLE = tableOfItsOwn('Person');
  let engine: TestEngine;
  beforeAll(async () => {
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    engine = await sharedTestEngine('dynalite', TABLE);
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
  }, SHARED_ENGINE_HOOK_MS);
  afterAll(async () => {
    await engine?.stop();
    vi.unstubAllEnvs();
  });

  it('writes the stories in batches into the table with the TopStories index; the top 10 query lists the most viewed', async () => {
    const stories = makeStories(300, 3);
    await seedDynamoDb(engine.endpoint, [TABLE], stories, deadline());
    const store = dynamoDbStoreFromEnv({ ...process.env, TABLE_NAME: TABLE, KEEP_ALIVE: 'on' });
    const top = (await store.top10?.(deadline())) ?? [];
    expect(top.map((s) => s.views)).toEqual(expectedTop(stories).map((s) => s.views));
  }, 120_000);
});
