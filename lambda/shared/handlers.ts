/**
 * The create and get handlers, written once over a PersonStore so every database target
 * answers the same statuses, errors and timing block.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DB_DEADLINE_MS } from './http-client';
import { emitTiming } from './metrics';
import { parseJsonBody, validateGovId, validatePerson } from './person';
import type { PersonStore } from './person-store';
import { initType, measureDb, nextInvocationIsCold, type Timing } from './timing';

export type ApiHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

const JSON_HEADERS = { 'content-type': 'application/json' };

function respond(statusCode: number, body: Record<string, unknown>, timing: Timing): APIGatewayProxyResult {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify({ ...body, timing }) };
}

function noDb(coldStart: boolean): Timing {
  return { dbMs: 0, newConnection: false, coldStart, initType: initType() };
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** A database that fails or does not answer in time is a 503 that says what failed. */
function dbFailure(
  store: PersonStore,
  op: string,
  error: unknown,
  deadline: AbortSignal,
  timing: Timing,
): APIGatewayProxyResult {
  const message = deadline.aborted
    ? `${store.name} ${op} did not answer within ${DB_DEADLINE_MS} ms`
    : `${store.name} ${op} failed: ${describeError(error)}`;
  console.error(JSON.stringify({ level: 'error', message, timing }));
  return respond(503, { error: message }, timing);
}

export function makeCreateHandler(store: PersonStore, fn: string): ApiHandler {
  return async (event) => {
    const coldStart = nextInvocationIsCold();
    const parsed = parseJsonBody(event.body, event.isBase64Encoded);
    const person = parsed.ok ? validatePerson(parsed.value) : parsed;
    if (!person.ok) {
      const t = noDb(coldStart);
      emitTiming(fn, 400, t);
      return respond(400, { error: person.error, field: person.field }, t);
    }
    const deadline = AbortSignal.timeout(DB_DEADLINE_MS);
    const m = await measureDb(store.socketsOpened, () => store.create(person.value, deadline));
    const timing: Timing = { dbMs: m.dbMs, newConnection: m.newConnection, coldStart, initType: initType() };
    let result: APIGatewayProxyResult;
    if (!m.outcome.ok) result = dbFailure(store, 'create', m.outcome.error, deadline, timing);
    else if (m.outcome.value === 'exists') {
      result = respond(
        409,
        { error: `a person with GovId ${person.value.GovId} already exists`, field: 'GovId' },
        timing,
      );
    } else result = respond(201, { person: person.value }, timing);
    emitTiming(fn, result.statusCode, timing);
    return result;
  };
}

export function makeGetHandler(store: PersonStore, fn: string): ApiHandler {
  return async (event) => {
    const coldStart = nextInvocationIsCold();
    const govId = validateGovId(event.pathParameters?.govId, 'govId');
    if (!govId.ok) {
      const t = noDb(coldStart);
      emitTiming(fn, 400, t);
      return respond(400, { error: govId.error, field: govId.field }, t);
    }
    const deadline = AbortSignal.timeout(DB_DEADLINE_MS);
    const m = await measureDb(store.socketsOpened, () => store.get(govId.value, deadline));
    const timing: Timing = { dbMs: m.dbMs, newConnection: m.newConnection, coldStart, initType: initType() };
    let result: APIGatewayProxyResult;
    if (!m.outcome.ok) result = dbFailure(store, 'get', m.outcome.error, deadline, timing);
    else if (m.outcome.value === undefined) {
      result = respond(404, { error: `no person with GovId ${govId.value}`, field: 'govId' }, timing);
    } else result = respond(200, { person: m.outcome.value }, timing);
    emitTiming(fn, result.statusCode, timing);
    return result;
  };
}
