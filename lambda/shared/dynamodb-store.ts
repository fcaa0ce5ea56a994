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

/** True when a stored item holds exactly the attributes this create would write. */
function sameItem(stored: Record<string, AttributeValue>, sent: Record<string, AttributeValue>): boolean {
  const keys = Object.keys(stored);
  return keys.length === Object.keys(sent).length && keys.every((k) => stored[k]?.S === sent[k]?.S);
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
  counters: Pick<PersonStore, 'socketsOpened' | 'requestsSent'>,
): PersonStore {
  const readItem = async (govId: string, signal: AbortSignal) => {
    // Strongly consistent: the lab reads what it has just written.
    const out = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { GovId: { S: govId } }, ConsistentRead: true }),
      { abortSignal: signal },
    );
    return out.Item;
  };
  return {
    name: 'DynamoDB',
    socketsOpened: counters.socketsOpened,
    requestsSent: counters.requestsSent,
    async create(person, signal) {
      const item = toItem(person);
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: item,
            ConditionExpression: 'attribute_not_exists(GovId)',
            // A retried put whose first attempt was written but whose answer was lost meets
            // its own item here; returning it lets the store tell that from a real conflict.
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          { abortSignal: signal },
        );
        return 'created';
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
        // dynalite ignores ALL_OLD; a strongly consistent read answers the same question.
        const stored = e.Item ?? (await readItem(person.GovId, signal));
        return stored && sameItem(stored, item) ? 'created' : 'exists';
      }
    },
    async get(govId, signal) {
      const item = await readItem(govId, signal);
      return item ? fromItem(item) : undefined;
    },
  };
}

/** The store a deployed function uses: built once per execution environment from its env. */
export function dynamoDbStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PersonStore {
  const tableName = requireEnv('TABLE_NAME', env);
  const http = createLabHttp(readKeepAlive(env));
  const client = new DynamoDBClient({ requestHandler: http.handler, maxAttempts: MAX_ATTEMPTS });
  return createDynamoDbStore(client, tableName, http);
}
