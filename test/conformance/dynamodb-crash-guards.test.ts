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
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTable, type Engine, startEngine } from '../../local/engines';
import { runClient } from './support/clients';

const TABLE = 'GuardTable';
const TARGET = 'DynamoDB_20120810';

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

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
  async function call(operation: string, body: unknown, raw?: string): Promise<Answer> {
    const r = await runClient(
      'curl',
      [
        '-s',
        '--max-time',
        '30',
        '--aws-sigv4',
        'aws:amz:us-east-1:dynamodb',
        '--user',
        'local:local',
        '-H',
        'content-type: application/x-amz-json-1.0',
        '-H',
        `x-amz-target: ${TARGET}.${operation}`,
        '-d',
        raw ?? JSON.stringify(body),
        '-w',
        '\n%{http_code}',
        engine.endpoint,
      ],
      { timeoutMs: 45_000 },
    );
    const at = r.stdout.lastIndexOf('\n');
    return { status: Number(r.stdout.slice(at + 1)), body: JSON.parse(r.stdout.slice(0, at) || '{}') };
  }

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
