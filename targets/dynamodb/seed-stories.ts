/**
 * The news site's stories written straight into the local table (LocalDatabase.seedStories):
 * BatchWriteItem with the lab's own client, never through the API, so nothing of it is counted.
 */
import {
  BatchWriteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import { PERSON_FIELDS } from '../../lambda/shared/person';
import { type SeedStory, throwIfSeedAborted } from '../../local/targets/seed-story';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './create-table';
import { CREATED_AT, PERSON_KEY, SECTION, SECTION_VALUE, TOP_STORIES_INDEX, VIEWS } from './schema';

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
        throwIfSeedAborted(signal);
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
