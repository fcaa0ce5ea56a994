/**
 * The Person table as targets/dynamodb/cdk.ts declares it (test/infra/stacks.test.ts checks the
 * synthesized template against this): GovId key, and the query's index. For tests and benches
 * that make the table without a synthesized template.
 */

import type { TableSchema } from './create-table';
import {
  BY_TYPE_INDEX,
  BY_TYPE_PARTITION,
  CREATED_AT,
  PERSON_KEY,
  SECTION,
  TOP_STORIES_INDEX,
  VIEWS,
} from './schema';

export const PERSON_TABLE_SCHEMA: TableSchema = {
  keySchema: [{ AttributeName: PERSON_KEY, KeyType: 'HASH' }],
  attributeDefinitions: [
    { AttributeName: PERSON_KEY, AttributeType: 'S' },
    { AttributeName: BY_TYPE_PARTITION, AttributeType: 'S' },
    { AttributeName: CREATED_AT, AttributeType: 'N' },
    { AttributeName: SECTION, AttributeType: 'S' },
    { AttributeName: VIEWS, AttributeType: 'N' },
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
    {
      IndexName: TOP_STORIES_INDEX,
      KeySchema: [
        { AttributeName: SECTION, KeyType: 'HASH' },
        { AttributeName: VIEWS, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
};
