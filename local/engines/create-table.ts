import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';

/** Local engines accept any credentials; fixed ones keep the SDK from searching the environment. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';

export function localClientConfig(endpoint: string): DynamoDBClientConfig {
  return { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
}

const ACTIVE_TIMEOUT_MS = 30_000;
const POLL_MS = 50;

/**
 * Creates the lab's table (GovId string hash key, on demand) and waits until it is ACTIVE.
 * Idempotent: a table that already exists is fine. Polls itself rather than using the SDK
 * waiter, whose minimum delay of seconds would dominate on a local engine.
 */
export async function createTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient(localClientConfig(endpoint));
  try {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          AttributeDefinitions: [{ AttributeName: 'GovId', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'GovId', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    const deadline = Date.now() + ACTIVE_TIMEOUT_MS;
    for (;;) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (Table?.TableStatus === 'ACTIVE') return;
      if (Date.now() > deadline) {
        throw new Error(
          `table ${tableName} at ${endpoint} is still ${Table?.TableStatus} after ${ACTIVE_TIMEOUT_MS} ms`,
        );
      }
      await sleep(POLL_MS);
    }
  } finally {
    client.destroy();
  }
}
