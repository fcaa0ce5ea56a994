/**
 * What an experiment against the deployed stack needs of the DynamoDB table beyond its
 * functions: the index each querying operation reads, there and ACTIVE (an index still
 * CREATING after a deploy would fail the queries or measure a backfill).
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeployedDatabaseCheck } from '../../core/lab-functions';
import { INDEX_OF } from './schema';

export const checkDeployedTable: DeployedDatabaseCheck = async (table, operations, clientConfig) => {
  const wanted = [...new Set(operations)].flatMap((operation) => {
    const index = INDEX_OF[operation];
    return index ? [{ index, operation }] : [];
  });
  if (wanted.length === 0) return [];
  const client = new DynamoDBClient({ ...clientConfig });
  try {
    const described = await client.send(new DescribeTableCommand({ TableName: table }));
    const out: string[] = [];
    for (const { index, operation } of wanted) {
      const gsi = described.Table?.GlobalSecondaryIndexes?.find((g) => g.IndexName === index);
      if (!gsi) out.push(`table ${table}: no index ${index}, which ${operation} queries`);
      else if (gsi.IndexStatus !== 'ACTIVE')
        out.push(
          `table ${table}: index ${index} is ${gsi.IndexStatus}, not ACTIVE yet (wait, then run again)`,
        );
    }
    return out;
  } finally {
    client.destroy();
  }
};
