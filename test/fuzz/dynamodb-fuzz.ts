/**
 * Fuzzes the default DynamoDB engine (dynalite behind the lab's conformance layer,
 * targets/dynamodb/dynalite-conformance.mjs) with requests from the expression grammar
 * (dynamodb-grammar.ts), sent as DynamoDB JSON over HTTP as any SDK sends them. For each input:
 * an answer within the budget (200, or a 4xx with DynamoDB's error shape: a `__type` naming the
 * exception and a `message`), then the engine is the same live process, the items written
 * before are as they were, and a well-formed read still answers.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, startEngine } from '../../targets/dynamodb/engine';
import { type DynamoCall, dynamoCall, FUZZ_TABLE, KEEP_KEY } from './dynamodb-grammar';
import { alive, assertRuns, type FuzzRuns, Tally, within } from './support/fuzz-runs';

/** DynamoDB answers a single-item request in milliseconds; a second is far past any of them. */
const BUDGET_MS = 1_000;
const DEADLINE_MS = 3 * BUDGET_MS;
/** DynamoDB's error type: the service namespace, then the exception's name. */
const ERROR_TYPE = /^com\.amazon(aws)?\.[\w.]+#\w+$/;

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

const KEEP_ITEMS = [1, 2, 3].map((sk) => ({
  pk: { S: KEEP_KEY },
  sk: { N: String(sk) },
  a: { S: `kept ${sk}` },
  n: { N: String(sk * 10) },
  l: { L: [{ S: 'x' }, { N: '1' }] },
  m: { M: { a: { S: 'inner' } } },
  ss: { SS: ['p', 'q'] },
}));

/** One DynamoDB JSON request; any signature passes locally, but its form must be SigV4's. */
async function call(
  endpoint: string,
  { operation, body }: DynamoCall,
  signal?: AbortSignal,
): Promise<Answer> {
  const date = new Date().toISOString().replace(/[:-]|\.\d{3}/g, '');
  const res = await fetch(endpoint, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${operation}`,
      'x-amz-date': date,
      authorization: `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}`,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : JSON.parse(text) };
}

/** The test file's suite: `runs` inputs, each checked as above. */
export function describeDynamoDbFuzz(runs: FuzzRuns, grammar: { maxDepth: number; maxChain: number }): void {
  describe(`fuzzing DynamoDB expressions on dynalite (${runs.tier} tier)`, () => {
    let engine: Engine;
    const tally = new Tally('dynamodb');
    beforeAll(async () => {
      engine = await startEngine({ kind: 'dynalite' });
      const created = await call(engine.endpoint, {
        operation: 'CreateTable',
        body: {
          TableName: FUZZ_TABLE,
          BillingMode: 'PAY_PER_REQUEST',
          KeySchema: [
            { AttributeName: 'pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          AttributeDefinitions: [
            { AttributeName: 'pk', AttributeType: 'S' },
            { AttributeName: 'sk', AttributeType: 'N' },
          ],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      for (const Item of KEEP_ITEMS) {
        expect(
          (await call(engine.endpoint, { operation: 'PutItem', body: { TableName: FUZZ_TABLE, Item } }))
            .status,
        ).toBe(200);
      }
    }, 60_000);
    afterAll(async () => {
      console.log(tally.line(runs));
      await engine?.stop();
    });

    /** The same process, alive, and the items written before, read as a client reads them. */
    async function stillWhole(pid: number): Promise<void> {
      expect(alive(engine.pid) && engine.pid === pid, 'the engine process').toBe(true);
      const read = await within(
        DEADLINE_MS,
        'a Query for the items written before',
        call(engine.endpoint, {
          operation: 'Query',
          body: {
            TableName: FUZZ_TABLE,
            KeyConditionExpression: 'pk = :k',
            ExpressionAttributeValues: { ':k': { S: KEEP_KEY } },
            ConsistentRead: true,
          },
        }),
      );
      expect(read.status).toBe(200);
      expect(read.body.Items).toEqual(KEEP_ITEMS);
    }

    it(
      `answers ${runs.numRuns} generated requests within the budget, in DynamoDB's shape, losing nothing`,
      async () => {
        const pid = engine.pid;
        await assertRuns(
          runs,
          fc.asyncProperty(dynamoCall(grammar.maxDepth, grammar.maxChain), async (request) => {
            const abort = new AbortController();
            let answer: Answer;
            try {
              answer = await within(
                DEADLINE_MS,
                JSON.stringify(request),
                call(engine.endpoint, request, abort.signal),
              );
            } catch (err) {
              tally.add(String(err).includes('no answer within') ? 'hang' : 'connection lost');
              abort.abort();
              throw err;
            }
            const type = typeof answer.body.__type === 'string' ? answer.body.__type.split('#')[1] : '';
            tally.add(`${answer.status}${type ? ` ${type}` : ''}`);
            if (answer.status !== 200) {
              expect(answer.status, JSON.stringify(answer.body)).toBe(400);
              expect(answer.body.__type).toMatch(ERROR_TYPE);
              if (type !== 'SerializationException') expect(typeof answer.body.message).toBe('string');
            }
            await stillWhole(pid);
          }),
        );
      },
      // Every input may take its whole deadline twice (the request and the check after it).
      runs.numRuns * 2 * DEADLINE_MS + 30_000,
    );
  });
}
