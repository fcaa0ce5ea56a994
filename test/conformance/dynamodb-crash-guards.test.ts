/**
 * Requests that crashed (or hung) dynalite 4.0.0, sent with curl --aws-sigv4 as a user would:
 * each gets DynamoDB's 400 and error type, and the engine keeps running with a table made
 * before still holding its items (the same process: nothing was restarted).
 *
 * DynamoDB's answers, as documented:
 * - errors and their types (SerializationException, ValidationException):
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
 * - an AttributeValue holds exactly one data type:
 *   https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValue.html
 * - Tag.Key and Tag.Value are required: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Tag.html
 * - IN compares an operand with a list of operands, attributes included:
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
 * - begins_with is true only where the attribute exists and begins with the operand:
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
 * - "The expression has redundant parentheses;" (DynamoDB's words, seen by clients:
 *   https://github.com/architect/dynalite/issues/99, https://github.com/getmoto/moto/issues/9574)
 * - a malformed BatchWriteItem (a null or empty write request, a null item or key) is a
 *   ValidationException (or a SerializationException), never a 5xx: the payloads ScyllaDB's
 *   Alternator tests send to DynamoDB itself (test/alternator/test_manual_requests.py,
 *   test_batch_write_item_invalid_payload); a list member or map value is never null in
 *   DynamoDB's API model, so a null one anywhere is refused the same way.
 * - nested attributes up to 32 levels deep; DynamoDB's words past them as nubo-db/dynoxide#110 quotes
 *   them: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html
 * - a failure inside the service is HTTP 500 with InternalServerError, and the client may retry
 *   (Programming.Errors.html, "Error types": 5xx errors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, type Engine, startEngine } from '../../targets/dynamodb/engine';
import { curlDynamoDb } from './support/dynamodb-curl';

const TABLE = 'GuardTable';

describe('DynamoDB: requests that crashed dynalite get a 400 and lose nothing', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine({ kind: 'dynalite' });
    await createTable(engine.endpoint, TABLE);
    for (const id of ['A-1', 'A-2'])
      expect(
        (await call('PutItem', { TableName: TABLE, Item: { GovId: { S: id }, n: { N: '1' } } })).status,
      ).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
  });

  /** One request, signed by curl itself; `raw` is sent as the body verbatim. */
  const call = (operation: string, body: unknown, raw?: string) =>
    curlDynamoDb(engine.endpoint, operation, body, { raw });

  const deep = `${'('.repeat(2000)}n = :v${')'.repeat(2000)}`;
  const cases: [string, string, unknown, string | undefined, string, RegExp | undefined][] = [
    ['a body of null', 'ListTables', undefined, 'null', 'SerializationException', undefined],
    ['a body that is a JSON array', 'ListTables', undefined, '[1]', 'SerializationException', undefined],
    [
      'a BatchWriteItem whose item has a null value',
      'BatchWriteItem',
      { RequestItems: { [TABLE]: [{ PutRequest: { Item: { GovId: null } } }] } },
      undefined,
      'ValidationException',
      /^Supplied AttributeValue is empty, must contain exactly one of the supported datatypes$/,
    ],
    [
      'a TagResource tag without a Value',
      'TagResource',
      { ResourceArn: `arn:aws:dynamodb:us-east-1:000000000000:table/${TABLE}`, Tags: [{ Key: 'team' }] },
      undefined,
      'ValidationException',
      /Value null at 'tags\.1\.member\.value' failed to satisfy constraint: Member must not be null/,
    ],
    [
      'about 2,000 nested parentheses in a filter',
      'Scan',
      { TableName: TABLE, FilterExpression: deep, ExpressionAttributeValues: { ':v': { N: '1' } } },
      undefined,
      'ValidationException',
      /^Invalid FilterExpression: The expression has redundant parentheses;$/,
    ],
  ];

  // Null list members and map values: each of these killed the engine before.
  const nullMembers: [string, string, unknown][] = [
    ['BatchWriteItem, a null write request', 'BatchWriteItem', { RequestItems: { [TABLE]: [null] } }],
    ['BatchGetItem, a null table entry', 'BatchGetItem', { RequestItems: { [TABLE]: null } }],
    [
      'PutItem, a null in a string set',
      'PutItem',
      { TableName: TABLE, Item: { GovId: { S: 'x' }, s: { SS: [null] } } },
    ],
    [
      'Scan, a null ScanFilter condition',
      'Scan',
      { TableName: TABLE, ScanFilter: { n: { ComparisonOperator: 'EQ', AttributeValueList: [null] } } },
    ],
    [
      'DeleteItem, a null Expected entry',
      'DeleteItem',
      { TableName: TABLE, Key: { GovId: { S: 'x' } }, Expected: { n: null } },
    ],
    [
      'CreateTable, a null global secondary index',
      'CreateTable',
      {
        TableName: 'NullIndex',
        AttributeDefinitions: [{ AttributeName: 'k', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'k', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        GlobalSecondaryIndexes: [null],
      },
    ],
    [
      'UpdateTable, a null index update',
      'UpdateTable',
      { TableName: TABLE, GlobalSecondaryIndexUpdates: [null] },
    ],
    [
      'TransactWriteItems, a null key value',
      'TransactWriteItems',
      { TransactItems: [{ Delete: { TableName: TABLE, Key: { GovId: null } } }] },
    ],
  ];
  for (const [what, operation, body] of nullMembers) {
    it(`${what}: 400 ValidationException`, async () => {
      const answer = await call(operation, body);
      expect(answer.status).toBe(400);
      expect(answer.body.__type).toMatch(/#ValidationException$/);
    });
  }

  it('every malformed BatchWriteItem payload Alternator sends to DynamoDB: 400 ValidationException or SerializationException', async () => {
    const payloads = [
      '',
      'null',
      '""',
      '{}',
      '{"RequestItems": null}',
      '{"RequestItems": ""}',
      '{"RequestItems": []}',
      '{"RequestItems": {"__TABLE__": null}}',
      '{"RequestItems": {"__TABLE__": [null]}}',
      '{"RequestItems": {"__TABLE__": [{}}]}}',
      '{"RequestItems": {"__TABLE__": [{"PutRequest": null}]}}',
      '{"RequestItems": {"__TABLE__": [{"PutRequest": {}}]}}',
      '{"RequestItems": {"__TABLE__": [{"PutRequest": {"Item": null}}]}}',
      '{"RequestItems": {"__TABLE__": [{"PutRequest": {"Item": {}}}]}}',
      '{"RequestItems": {"__TABLE__": [{"DeleteRequest": null}]}}',
      '{"RequestItems": {"__TABLE__": [{"DeleteRequest": {}}]}}',
      '{"RequestItems": {"__TABLE__": [{"DeleteRequest": {"Key": null}}]}}',
      '{"RequestItems": {"__TABLE__": [{"DeleteRequest": {"Key": {}}}]}}',
    ];
    for (const payload of payloads) {
      const answer = await call('BatchWriteItem', undefined, payload.replaceAll('__TABLE__', TABLE));
      expect({ payload, status: answer.status }).toEqual({ payload, status: 400 });
      expect(answer.body.__type, payload).toMatch(/#(ValidationException|SerializationException)$/);
    }
  });

  it('a document 32 levels deep is stored; one level more, or 5,000, is refused before anything recurses', async () => {
    // DynamoDB stores nested attributes up to 32 levels deep (Constraints.html, "Nested attribute
    // depth"): 31 list wraps above a scalar pass, 32 do not.
    const wrapped = (wraps: number) => `${'{"L":['.repeat(wraps)}{"S":"x"}${']}'.repeat(wraps)}`;
    const put = (wraps: number, id: string) =>
      call(
        'PutItem',
        undefined,
        `{"TableName":"${TABLE}","Item":{"GovId":{"S":"${id}"},"d":${wrapped(wraps)}}}`,
      );
    expect((await put(31, 'DEEP-31')).status).toBe(200);
    for (const wraps of [32, 5000]) {
      const answer = await put(wraps, `DEEP-${wraps}`);
      expect(answer).toMatchObject({
        status: 400,
        body: {
          __type: 'com.amazon.coral.validate#ValidationException',
          message:
            'Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit',
        },
      });
    }
    const deleted = await call('DeleteItem', { TableName: TABLE, Key: { GovId: { S: 'DEEP-31' } } });
    expect(deleted.status).toBe(200);
  });

  it('an error the engine does not expect (a request target its URL parser throws on): 500 InternalServerError', async () => {
    // dynalite parses the request target with url.parse, which throws on this absolute-form host.
    const answer = await curlDynamoDb(
      engine.endpoint,
      'ListTables',
      {},
      { curlArgs: ['--request-target', 'http://xn--a/'] },
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({
      __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
      message: 'Internal server error',
    });
    expect((await call('ListTables', {})).status).toBe(200);
  });

  for (const [what, operation, body, raw, type, message] of cases) {
    it(`${what}: 400 ${type}`, async () => {
      const answer = await call(operation, body, raw);
      expect(answer.status).toBe(400);
      expect(answer.body.__type).toMatch(new RegExp(`#${type}$`));
      if (message) expect(answer.body.message).toMatch(message);
    });
  }

  it('a filter comparing with an attribute the items lack (IN) is answered, matching what it means', async () => {
    // n IN (zq, :v): no item has `zq` or `zr`, every item has n = 1.
    const answer = await call('Scan', {
      TableName: TABLE,
      FilterExpression: 'n IN (zq, :v)',
      ExpressionAttributeValues: { ':v': { N: '1' } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.Count).toBe(2);
    const none = await call('Scan', { TableName: TABLE, FilterExpression: 'n IN (zq, zr)' });
    expect(none).toMatchObject({ status: 200, body: { Count: 0 } });
  });

  it('begins_with on attributes the items lack is false, in a filter and a condition (fuzzing found it killed dynalite)', async () => {
    // Neither zq nor zr exists on any item: false, not a crash; NOT of it holds for both items.
    expect(await call('Scan', { TableName: TABLE, FilterExpression: 'begins_with(zq, zr)' })).toMatchObject({
      status: 200,
      body: { Count: 0 },
    });
    expect(
      await call('Scan', { TableName: TABLE, FilterExpression: 'NOT begins_with(zq[3], zr.x)' }),
    ).toMatchObject({ status: 200, body: { Count: 2 } });
    const refused = await call('DeleteItem', {
      TableName: TABLE,
      Key: { GovId: { S: 'A-1' } },
      ConditionExpression: 'begins_with(zq, zr)',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.__type).toMatch(/#ConditionalCheckFailedException$/);
  });

  it('after all of them the engine is the same process and the table still has its items', async () => {
    const pid = engine.pid;
    const scan = await call('Scan', { TableName: TABLE });
    expect(scan.status).toBe(200);
    expect(((scan.body.Items ?? []) as { GovId: { S: string } }[]).map((i) => i.GovId.S).sort()).toEqual([
      'A-1',
      'A-2',
    ]);
    expect(engine.pid).toBe(pid);
    expect(() => process.kill(pid, 0)).not.toThrow();
  });
});
