import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { readKeepAlive, requireEnv } from './env';
import { createLabHttp, MAX_ATTEMPTS } from './http-client';
import { PERSON_FIELDS, type Person } from './person';
import type { PersonStore } from './person-store';

// Every Person attribute is a string, so marshalling by hand avoids bundling util-dynamodb.
function toItem(person: Person): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  for (const f of PERSON_FIELDS) {
    const v = person[f];
    if (v !== undefined) item[f] = { S: v };
  }
  return item;
}

function fromItem(item: Record<string, AttributeValue>): Person {
  const out: Record<string, string> = {};
  for (const f of PERSON_FIELDS) {
    const v = item[f]?.S;
    if (v !== undefined) out[f] = v;
  }
  return out as unknown as Person;
}

export function createDynamoDbStore(
  client: DynamoDBClient,
  tableName: string,
  socketsOpened: () => number,
): PersonStore {
  return {
    name: 'DynamoDB',
    socketsOpened,
    async create(person, signal) {
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: toItem(person),
            ConditionExpression: 'attribute_not_exists(GovId)',
          }),
          { abortSignal: signal },
        );
        return 'created';
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return 'exists';
        throw e;
      }
    },
    async get(govId, signal) {
      // Strongly consistent: the lab reads what it has just written.
      const out = await client.send(
        new GetItemCommand({ TableName: tableName, Key: { GovId: { S: govId } }, ConsistentRead: true }),
        { abortSignal: signal },
      );
      return out.Item ? fromItem(out.Item) : undefined;
    },
  };
}

/** The store a deployed function uses: built once per execution environment from its env. */
export function dynamoDbStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PersonStore {
  const tableName = requireEnv('TABLE_NAME', env);
  const http = createLabHttp(readKeepAlive(env));
  const client = new DynamoDBClient({ requestHandler: http.handler, maxAttempts: MAX_ATTEMPTS });
  return createDynamoDbStore(client, tableName, http.socketsOpened);
}
