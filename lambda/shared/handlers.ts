/**
 * The API handlers, written once over a PersonStore so every database target answers the
 * same statuses, errors and timing block. Each operation is a parser and an answer around
 * one store call; `makeHandler` runs the flow they all share: validate -> measure -> 503 -> emit.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DB_DEADLINE_MS } from './http-client';
import { emitTiming } from './metrics';
import { parseJsonBody, type Validation, validateGovId, validatePerson } from './person';
import type { PersonStore } from './person-store';
import { initType, measureDb, nextInvocationIsCold, type Timing } from './timing';

export type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** What one operation adds to the shared flow. */
export interface Operation<Input, Output> {
  /** Used in 503 messages: "DynamoDB create failed: ...". */
  readonly name: string;
  parse(event: APIGatewayProxyEvent): Validation<Input>;
  run(store: PersonStore, input: Input, signal: AbortSignal): Promise<Output>;
  answer(input: Input, output: Output): { statusCode: number; body: Record<string, unknown> };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function respond(statusCode: number, body: Record<string, unknown>, timing: Timing): APIGatewayProxyResult {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify({ ...body, timing }) };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

export function makeHandler<Input, Output>(
  store: PersonStore,
  fn: string,
  op: Operation<Input, Output>,
): ApiHandler {
  return async (event) => {
    const coldStart = nextInvocationIsCold();
    const input = op.parse(event);
    if (!input.ok) {
      const timing: Timing = {
        dbMs: 0,
        newConnection: false,
        dbRequests: 0,
        coldStart,
        initType: initType(),
      };
      emitTiming(fn, 400, timing);
      return respond(400, { error: input.error, field: input.field }, timing);
    }
    const deadline = AbortSignal.timeout(DB_DEADLINE_MS);
    const m = await measureDb(store, () => op.run(store, input.value, deadline));
    const timing: Timing = {
      dbMs: m.dbMs,
      newConnection: m.newConnection,
      dbRequests: m.dbRequests,
      coldStart,
      initType: initType(),
    };
    let result: APIGatewayProxyResult;
    if (m.outcome.ok) {
      const { statusCode, body } = op.answer(input.value, m.outcome.value);
      result = respond(statusCode, body, timing);
    } else {
      // A database that fails or does not answer in time is a 503 that says what failed.
      const error = deadline.aborted
        ? `${store.name} ${op.name} did not answer within ${DB_DEADLINE_MS} ms`
        : `${store.name} ${op.name} failed: ${describeError(m.outcome.error)}`;
      console.error(JSON.stringify({ level: 'error', message: error, timing }));
      result = respond(503, { error }, timing);
    }
    emitTiming(fn, result.statusCode, timing);
    return result;
  };
}

export const createPerson: Operation<
  Parameters<PersonStore['create']>[0],
  Awaited<ReturnType<PersonStore['create']>>
> = {
  name: 'create',
  parse(event) {
    const parsed = parseJsonBody(event.body, event.isBase64Encoded);
    return parsed.ok ? validatePerson(parsed.value) : parsed;
  },
  run: (store, person, signal) => store.create(person, signal),
  answer: (person, outcome) =>
    outcome === 'exists'
      ? {
          statusCode: 409,
          body: { error: `a person with GovId ${person.GovId} already exists`, field: 'GovId' },
        }
      : { statusCode: 201, body: { person } },
};

export const getPerson: Operation<string, Awaited<ReturnType<PersonStore['get']>>> = {
  name: 'get',
  parse: (event) => validateGovId(event.pathParameters?.govId, 'govId'),
  run: (store, govId, signal) => store.get(govId, signal),
  answer: (govId, person) =>
    person === undefined
      ? { statusCode: 404, body: { error: `no person with GovId ${govId}`, field: 'govId' } }
      : { statusCode: 200, body: { person } },
};

export const makeCreateHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, createPerson);
export const makeGetHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, getPerson);
