/**
 * The news site's stories written straight into the local server (LocalDatabase.seedStories):
 * one pipeline per 1,000 stories, in the store's own keys, never through the API.
 */
import { Redis } from 'ioredis';
import { personJson, type SeedStory, throwIfSeedAborted } from '../../local/targets/seed-story';
import { byTypeKey, personKey, VIEWS_KEY } from './store';

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
      throwIfSeedAborted(signal);
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
