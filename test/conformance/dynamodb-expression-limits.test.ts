/**
 * DynamoDB's expression limits, checked before any parsing, sent with curl --aws-sigv4 as a user
 * would. What DynamoDB documents (Developer Guide, "Constraints in Amazon DynamoDB", Expression
 * parameters: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-expression-parameters):
 * - "The maximum length of any expression string is 4 KB";
 * - "The maximum length of any single expression attribute name or expression attribute value is
 *   255 bytes" (the placeholder, `#name` or `:val`);
 * - "The maximum number of operators or functions allowed in an UpdateExpression is 300" (and
 *   DynamoDB applies 300 to conditions as well);
 * - "The maximum number of operands for the IN comparator is 100".
 * The messages, and where the lines fall, are DynamoDB's as measured against it by others:
 * - ScyllaDB's Alternator tests, run against DynamoDB (test/alternator/test_limits.py):
 *   4,096 bytes pass and 4,097 fail on every expression; `a<b or (a<b or (...))` 149 levels deep
 *   (299 operators) succeeds while 454 levels (under 4 KB) fail with "The expression contains too
 *   many operators; operator count: 301"; "Expression size has exceeded the maximum allowed
 *   size; expression size: N";
 * - "The IN operator is provided with too many operands; number of operands: 163"
 *   (https://github.com/reapit/foundations/issues/8255);
 * - "The expression attribute map contains a key that is too long; size of key: N"
 *   (https://github.com/ExtendDB/extenddb/pull/181, captured from DynamoDB).
 * Before the layer checked these, dynalite's parser time grew geometrically with the nesting
 * level, so a deep condition held the engine's only thread past any deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, type Engine, startEngine } from '../../targets/dynamodb/engine';
import { curlDynamoDb } from './support/dynamodb-curl';

const TABLE = 'LimitTable';
const KEY = { GovId: { S: 'L-1' } };
// A generous bound for one request on a loaded 2-core machine; without the layer the 149-deep
// condition never answers at all.
const ANSWER_MS = 10_000;

const nested = (depth: number) => `a<b ${'or (a<b '.repeat(depth)}${')'.repeat(depth)}`;

describe('DynamoDB: expression limits as DynamoDB documents them, checked before parsing', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine({ kind: 'dynalite' });
    await createTable(engine.endpoint, TABLE);
    const put = await call('PutItem', { TableName: TABLE, Item: { ...KEY, a: { N: '1' }, b: { N: '2' } } });
    expect(put.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
  });

  const call = (operation: string, body: unknown) => curlDynamoDb(engine.endpoint, operation, body);
  const updateIf = (condition: string) =>
    call('UpdateItem', {
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'SET z = z + :one',
      ConditionExpression: `attribute_exists(z) or (${condition})`,
      ExpressionAttributeValues: { ':one': { N: '1' } },
    });

  it(
    'a condition nested 149 levels deep (299 operators) is evaluated and the update applied',
    async () => {
      await call('UpdateItem', {
        TableName: TABLE,
        Key: KEY,
        UpdateExpression: 'SET z = :zero',
        ExpressionAttributeValues: { ':zero': { N: '0' } },
      });
      const answer = await call('UpdateItem', {
        TableName: TABLE,
        Key: KEY,
        UpdateExpression: 'SET z = :val',
        ConditionExpression: nested(149),
        ExpressionAttributeValues: { ':val': { N: '1' } },
      });
      expect(answer).toMatchObject({ status: 200 });
      const item = await call('GetItem', { TableName: TABLE, Key: KEY, ConsistentRead: true });
      expect(item.body.Item).toMatchObject({ z: { N: '1' } });
    },
    ANSWER_MS,
  );

  it('150 levels (301 operators) and 454 levels (still under 4 KB): too many operators', async () => {
    for (const depth of [150, 454]) {
      const condition = nested(depth);
      expect(Buffer.byteLength(condition)).toBeLessThan(4096);
      const answer = await call('UpdateItem', {
        TableName: TABLE,
        Key: KEY,
        UpdateExpression: 'SET z = :val',
        ConditionExpression: condition,
        ExpressionAttributeValues: { ':val': { N: '1' } },
      });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        __type: 'com.amazon.coral.validate#ValidationException',
        message:
          'Invalid ConditionExpression: The expression contains too many operators; operator count: 301',
      });
    }
  });

  it('an expression of 4,096 bytes passes, 4,097 is refused by its size (projection, filter)', async () => {
    const at = await call('GetItem', { TableName: TABLE, Key: KEY, ProjectionExpression: 'x'.repeat(4096) });
    expect(at.status).toBe(200);
    const over = await call('GetItem', {
      TableName: TABLE,
      Key: KEY,
      ProjectionExpression: 'x'.repeat(4097),
    });
    expect(over).toMatchObject({
      status: 400,
      body: {
        message:
          'Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097',
      },
    });
    // Refused by its size even though it is a syntax error too, and deeply nested.
    const deep = await call('Scan', { TableName: TABLE, FilterExpression: '('.repeat(15_000) });
    expect(deep).toMatchObject({
      status: 400,
      body: {
        message:
          'Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 15000',
      },
    });
  });

  it('IN takes 100 operands; 101 are refused', async () => {
    const values = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`:v${i}`, { N: String(i) }]));
    const list = (n: number) => Array.from({ length: n }, (_, i) => `:v${i}`).join(', ');
    const within = await call('Scan', {
      TableName: TABLE,
      FilterExpression: `a IN (${list(100)}) or a = :v100`,
      ExpressionAttributeValues: values,
    });
    expect(within).toMatchObject({ status: 200, body: { Count: 1 } });
    const over = await call('Scan', {
      TableName: TABLE,
      FilterExpression: `a IN (${list(101)})`,
      ExpressionAttributeValues: values,
    });
    expect(over).toMatchObject({
      status: 400,
      body: {
        message:
          'Invalid FilterExpression: The IN operator is provided with too many operands; number of operands: 101',
      },
    });
  });

  it('an update with 300 operators passes, 301 are refused', async () => {
    // One `+` per action (DynamoDB's grammar takes one per value): a0 = :o + :o, a1 = ...
    const sets = (operators: number) =>
      `SET ${Array.from({ length: operators }, (_, i) => `a${i}=:o+:o`).join(',')}`;
    expect(Buffer.byteLength(sets(301))).toBeLessThan(4096);
    const at = await call('UpdateItem', {
      TableName: TABLE,
      Key: { GovId: { S: 'L-2' } },
      UpdateExpression: sets(300),
      ExpressionAttributeValues: { ':o': { N: '1' } },
      ReturnValues: 'UPDATED_NEW',
    });
    expect(at).toMatchObject({ status: 200, body: { Attributes: { a299: { N: '2' } } } });
    const over = await call('UpdateItem', {
      TableName: TABLE,
      Key: { GovId: { S: 'L-2' } },
      UpdateExpression: sets(301),
      ExpressionAttributeValues: { ':o': { N: '1' } },
    });
    expect(over).toMatchObject({
      status: 400,
      body: {
        message: 'Invalid UpdateExpression: The expression contains too many operators; operator count: 301',
      },
    });
  });

  it('a placeholder of 255 bytes passes, 256 is refused', async () => {
    const name = (bytes: number) => `#${'n'.repeat(bytes - 1)}`;
    const at = await call('GetItem', {
      TableName: TABLE,
      Key: KEY,
      ProjectionExpression: name(255),
      ExpressionAttributeNames: { [name(255)]: 'a' },
    });
    expect(at).toMatchObject({ status: 200, body: { Item: { a: { N: '1' } } } });
    const over = await call('GetItem', {
      TableName: TABLE,
      Key: KEY,
      ProjectionExpression: name(256),
      ExpressionAttributeNames: { [name(256)]: 'a' },
    });
    expect(over).toMatchObject({
      status: 400,
      body: {
        message:
          'ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256',
      },
    });
  });

  it('inside a transaction the same limits hold, and the item is as the last good update left it', async () => {
    const answer = await call('TransactWriteItems', {
      TransactItems: [
        {
          ConditionCheck: { TableName: TABLE, Key: KEY, ConditionExpression: nested(454) },
        },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/too many operators; operator count: 301$/);
    // The deep condition is evaluated too when an update is conditional on it.
    expect((await updateIf(nested(100))).status).toBe(200);
    const item = await call('GetItem', { TableName: TABLE, Key: KEY, ConsistentRead: true });
    expect(item.body.Item).toMatchObject({ a: { N: '1' }, z: { N: '2' } });
  });
});
