/**
 * The news site's stories written straight into the local PostgreSQL (LocalDatabase.seedStories):
 * one INSERT over arrays per 1,000 stories, as the superuser on the server's private socket,
 * never through the DSQL front.
 */
import pg from 'pg';
import { type SeedStory, throwIfSeedAborted } from '../../local/targets/seed-story';

/** PostgreSQL (the DSQL target's engine): one INSERT over arrays per 1,000 stories, on the server's own socket. */
export async function seedPostgres(
  client: pg.Client,
  stories: readonly SeedStory[],
  signal: AbortSignal,
): Promise<void> {
  for (let i = 0; i < stories.length; i += 1000) {
    throwIfSeedAborted(signal);
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

/** Seeds over a new connection to `endpoint` (postgresql://postgres@/postgres?host=<socketDir>). */
export async function seedPostgresAt(
  endpoint: string,
  stories: readonly SeedStory[],
  signal: AbortSignal,
): Promise<void> {
  const client = new pg.Client({ connectionString: endpoint });
  await client.connect();
  try {
    await seedPostgres(client, stories, signal);
  } finally {
    await client.end();
  }
}
