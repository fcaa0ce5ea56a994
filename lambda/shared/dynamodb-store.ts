import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { BY_TYPE_INDEX, BY_TYPE_PARTITION, CREATED_AT, PERSON_KEY } from './dynamodb-schema';
import { readKeepAlive, requireEnv } from './env';
import { createLabHttp, MAX_ATTEMPTS } from './http-client';
import { PERSON_FIELDS, type Person } from './person';
import type { PersonStore } from './person-store';

// Every Person attribute is a string, so marshalling by hand avoids bundling util-dynamodb.
// CreatedAt (a number) is what the query's index sorts by; an item without it would be
// missing from the index, so every write stamps it.
function toItem(person: Person, createdAt: number): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  for (const f of PERSON_FIELDS) {
    const v = person[f];
    if (v !== undefined) item[f] = { S: v };
  }
  item[CREATED_AT] = { N: String(createdAt) };
  return item;
}

/** True when a stored item holds exactly the attributes this create would write. */
function sameItem(stored: Record<string, AttributeValue>, sent: Record<string, AttributeValue>): boolean {
  const keys = Object.keys(stored);
  return (
    keys.length === Object.keys(sent).length &&
    keys.every((k) => stored[k]?.S === sent[k]?.S && stored[k]?.N === sent[k]?.N)
  );
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
    async prewarm(signal) {
      // Reads the table's description, never an item: the role's one extra grant when prewarm is on.
      await client.send(new DescribeTableCommand({ TableName: tableName }), { abortSignal: signal });
    },
    async create(person, signal) {
      // Built once: an SDK retry sends the same CreatedAt, which sameItem relies on.
      const item = toItem(person, Date.now());
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
        // The item that failed the condition comes with the error (ALL_OLD): one request, as in
        // AWS. Both local engines return it (dynalite through local/engines/dynalite-conformance.mjs).
        return e.Item && sameItem(e.Item, item) ? 'created' : 'exists';
      }
    },
    async get(govId, signal) {
      const item = await readItem(govId, signal);
      return item ? fromItem(item) : undefined;
    },
    async overwrite(person, signal) {
      try {
        // One PutItem: the whole item replaced, only if it exists. A retried attempt whose first
        // write landed meets its own item, which still exists: idempotent without a read.
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: toItem(person, Date.now()),
            ConditionExpression: 'attribute_exists(#key)',
            ExpressionAttributeNames: { '#key': PERSON_KEY },
          }),
          { abortSignal: signal },
        );
        return 'replaced';
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return 'missing';
        throw e;
      }
    },
    async update(govId, changes, signal) {
      try {
        const out = await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: { [PERSON_KEY]: { S: govId } },
            UpdateExpression: 'SET #address = :address',
            ConditionExpression: 'attribute_exists(#key)',
            ExpressionAttributeNames: { '#address': 'Address', '#key': PERSON_KEY },
            ExpressionAttributeValues: { ':address': { S: changes.Address } },
            // The updated item in the same answer: no second read.
            ReturnValues: 'ALL_NEW',
          }),
          { abortSignal: signal },
        );
        return out.Attributes ? fromItem(out.Attributes) : undefined;
      } catch (e) {
        if (e instanceof ConditionalCheckFailedException) return undefined;
        throw e;
      }
    },
    async query(govIdType, limit, signal) {
      // Newest first straight from the index, `limit` items: one request, never a scan. Index
      // reads are eventually consistent (a Person created a moment ago may not be listed yet).
      const out = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: BY_TYPE_INDEX,
          KeyConditionExpression: '#type = :type',
          ExpressionAttributeNames: { '#type': BY_TYPE_PARTITION },
          ExpressionAttributeValues: { ':type': { S: govIdType } },
          ScanIndexForward: false,
          Limit: limit,
        }),
        { abortSignal: signal },
      );
      return (out.Items ?? []).map(fromItem);
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
