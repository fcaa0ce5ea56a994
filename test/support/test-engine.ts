import {
  BY_TYPE_INDEX,
  BY_TYPE_PARTITION,
  CREATED_AT,
  PERSON_KEY,
} from '../../lambda/shared/dynamodb-schema';
import { createTable, type EngineKind, startEngine, type TableSchema } from '../../local/engines';

export interface TestEngine {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * The Person table as lib/targets/dynamodb.ts declares it (test/infra/stacks.test.ts checks the
 * synthesized template against this): GovId key, and the query's index.
 */
export const PERSON_TABLE_SCHEMA: TableSchema = {
  keySchema: [{ AttributeName: PERSON_KEY, KeyType: 'HASH' }],
  attributeDefinitions: [
    { AttributeName: PERSON_KEY, AttributeType: 'S' },
    { AttributeName: BY_TYPE_PARTITION, AttributeType: 'S' },
    { AttributeName: CREATED_AT, AttributeType: 'N' },
  ],
  globalSecondaryIndexes: [
    {
      IndexName: BY_TYPE_INDEX,
      KeySchema: [
        { AttributeName: BY_TYPE_PARTITION, KeyType: 'HASH' },
        { AttributeName: CREATED_AT, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
};

/** A real local DynamoDB engine with the lab's table, for handler tests. */
export async function startTestEngine(kind: EngineKind, table: string): Promise<TestEngine> {
  const engine = await startEngine({ kind });
  try {
    await createTable(engine.endpoint, table, PERSON_TABLE_SCHEMA);
  } catch (e) {
    await engine.stop();
    throw e;
  }
  return engine;
}
