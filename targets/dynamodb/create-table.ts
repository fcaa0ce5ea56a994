import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  type DynamoDBClientConfig,
  type GlobalSecondaryIndex,
  type KeySchemaElement,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';

import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/engines/types';

export { LOCAL_CREDENTIALS, LOCAL_REGION };

export function localClientConfig(endpoint: string): DynamoDBClientConfig {
  return { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
}

const ACTIVE_TIMEOUT_MS = 30_000;
const POLL_MS = 50;

/** A table's keys and indexes, as an `AWS::DynamoDB::Table` resource declares them. */
export interface TableSchema {
  readonly keySchema: KeySchemaElement[];
  readonly attributeDefinitions: AttributeDefinition[];
  /** @default - none */
  readonly globalSecondaryIndexes?: GlobalSecondaryIndex[];
}

/** A GovId string hash key and nothing else. */
export const GOV_ID_KEY_ONLY: TableSchema = {
  keySchema: [{ AttributeName: 'GovId', KeyType: 'HASH' }],
  attributeDefinitions: [{ AttributeName: 'GovId', AttributeType: 'S' }],
};

/**
 * The schema of a template's table resource: its KeySchema, AttributeDefinitions and
 * GlobalSecondaryIndexes (name, keys, projection; throughput settings do not apply on demand).
 */
export function tableSchemaOf(properties: Readonly<Record<string, unknown>> | undefined): TableSchema {
  const p = properties ?? {};
  if (!Array.isArray(p.KeySchema) || !Array.isArray(p.AttributeDefinitions)) {
    throw new Error('the table resource has no KeySchema or AttributeDefinitions');
  }
  const indexes = Array.isArray(p.GlobalSecondaryIndexes)
    ? (p.GlobalSecondaryIndexes as GlobalSecondaryIndex[]).map((i) => ({
        IndexName: i.IndexName,
        KeySchema: i.KeySchema,
        Projection: i.Projection,
      }))
    : undefined;
  return {
    keySchema: p.KeySchema as KeySchemaElement[],
    attributeDefinitions: p.AttributeDefinitions as AttributeDefinition[],
    ...(indexes && indexes.length > 0 ? { globalSecondaryIndexes: indexes } : {}),
  };
}

/**
 * Creates a table (on demand) with the given keys and indexes and waits until it is ACTIVE.
 * Idempotent: a table that already exists is fine. Polls itself rather than using the SDK
 * waiter, whose minimum delay of seconds would dominate on a local engine.
 */
export async function createTable(
  endpoint: string,
  tableName: string,
  schema: TableSchema = GOV_ID_KEY_ONLY,
): Promise<void> {
  const client = new DynamoDBClient(localClientConfig(endpoint));
  try {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          AttributeDefinitions: schema.attributeDefinitions,
          KeySchema: schema.keySchema,
          GlobalSecondaryIndexes: schema.globalSecondaryIndexes,
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    const deadline = Date.now() + ACTIVE_TIMEOUT_MS;
    for (;;) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE');
      if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
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
