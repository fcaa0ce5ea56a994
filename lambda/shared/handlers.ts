/**
 * The API handlers, written once over a PersonStore so every database target answers the
 * same statuses, errors and timing block. Each operation is a parser and an answer around
 * one store call; `makeHandler` runs the flow they all share: validate -> measure -> 503 -> emit.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DB_DEADLINE_MS } from './http-client';
import { emitTiming } from './metrics';
import {
  type Person,
  type PersonChanges,
  type PersonQuery,
  parseJsonBody,
  type Validation,
  validateChanges,
  validateGovId,
  validatePerson,
  validatePersons,
  validateQuery,
} from './person';
import { InvalidInputError, type PersonStore, type Story } from './person-store';
import {
  enterInvocation,
  environmentId,
  initType,
  measureDb,
  nextInvocationIsCold,
  type Timing,
} from './timing-meter';

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
  const handle = async (event: APIGatewayProxyEvent, concurrency: number): Promise<APIGatewayProxyResult> => {
    const coldStart = nextInvocationIsCold();
    const input = op.parse(event);
    if (!input.ok) {
      const timing: Timing = {
        dbMs: 0,
        newConnection: false,
        dbRequests: 0,
        dbRoundTrips: 0,
        coldStart,
        initType: initType(),
        environment: environmentId(),
        concurrency,
      };
      emitTiming(fn, 400, timing);
      return respond(400, { error: input.error, field: input.field }, timing);
    }
    const deadline = AbortSignal.timeout(store.deadlineMs ?? DB_DEADLINE_MS);
    const m = await measureDb(store, () => op.run(store, input.value, deadline));
    const timing: Timing = {
      dbMs: m.dbMs,
      newConnection: m.newConnection,
      dbRequests: m.dbRequests,
      dbRoundTrips: m.dbRoundTrips,
      ...(Object.keys(m.dbCommands).length > 0 ? { dbCommands: m.dbCommands } : {}),
      coldStart,
      initType: initType(),
      environment: environmentId(),
      concurrency,
      ...(m.billed.length > 0 ? { billed: m.billed } : {}),
    };
    let result: APIGatewayProxyResult;
    if (m.outcome.ok) {
      const { statusCode, body } = op.answer(input.value, m.outcome.value);
      result = respond(statusCode, body, timing);
    } else if (m.outcome.error instanceof InvalidInputError) {
      // The database refused the data: the client's mistake, answered as validation answers it.
      const { message, field } = m.outcome.error;
      result = respond(
        400,
        { error: `${store.name} ${op.name} refused the request: ${message}`, field },
        timing,
      );
    } else {
      // A database that fails or does not answer in time is a 503 that says what failed.
      const error = deadline.aborted
        ? `${store.name} ${op.name} did not answer within ${store.deadlineMs ?? DB_DEADLINE_MS} ms`
        : `${store.name} ${op.name} failed: ${describeError(m.outcome.error)}`;
      console.error(JSON.stringify({ level: 'error', message: error, timing }));
      result = respond(503, { error }, timing);
    }
    emitTiming(fn, result.statusCode, timing);
    return result;
  };
  return async (event) => {
    // Counted before the first await, so invocations that overlap see each other.
    const entered = enterInvocation();
    try {
      return await handle(event, entered.concurrency);
    } finally {
      entered.leave();
    }
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

const notFound = (govId: string) => ({
  statusCode: 404,
  body: { error: `no person with GovId ${govId}`, field: 'govId' },
});

export const getPerson: Operation<string, Awaited<ReturnType<PersonStore['get']>>> = {
  name: 'get',
  parse: (event) => validateGovId(event.pathParameters?.govId, 'govId'),
  run: (store, govId, signal) => store.get(govId, signal),
  answer: (govId, person) => (person === undefined ? notFound(govId) : { statusCode: 200, body: { person } }),
};

export const overwritePerson: Operation<Person, 'replaced' | 'missing'> = {
  name: 'overwrite',
  parse(event) {
    const govId = validateGovId(event.pathParameters?.govId, 'govId');
    if (!govId.ok) return govId;
    const parsed = parseJsonBody(event.body, event.isBase64Encoded);
    const person = parsed.ok ? validatePerson(parsed.value) : parsed;
    if (!person.ok) return person;
    // The path names the record; a body for another GovId is a client bug, never a rename.
    if (person.value.GovId !== govId.value) {
      return {
        ok: false,
        error: `GovId ${person.value.GovId} does not match the path's ${govId.value}`,
        field: 'GovId',
      };
    }
    return person;
  },
  run: (store, person, signal) => store.overwrite(person, signal),
  answer: (person, outcome) =>
    outcome === 'missing' ? notFound(person.GovId) : { statusCode: 200, body: { person } },
};

export const updatePerson: Operation<
  { readonly govId: string; readonly changes: PersonChanges },
  Person | undefined
> = {
  name: 'update',
  parse(event) {
    const govId = validateGovId(event.pathParameters?.govId, 'govId');
    if (!govId.ok) return govId;
    const parsed = parseJsonBody(event.body, event.isBase64Encoded);
    const changes = parsed.ok ? validateChanges(parsed.value) : parsed;
    return changes.ok ? { ok: true, value: { govId: govId.value, changes: changes.value } } : changes;
  },
  run: (store, { govId, changes }, signal) => store.update(govId, changes, signal),
  answer: ({ govId }, person) =>
    person === undefined ? notFound(govId) : { statusCode: 200, body: { person } },
};

const QUERY_PARAMETERS = ['govIdType', 'limit'];

export const queryPersons: Operation<PersonQuery, Person[]> = {
  name: 'query',
  parse(event) {
    const multi = event.multiValueQueryStringParameters ?? {};
    const names = new Set([...Object.keys(multi), ...Object.keys(event.queryStringParameters ?? {})]);
    for (const name of names) {
      if (!QUERY_PARAMETERS.includes(name)) {
        return {
          ok: false,
          error: `unknown parameter ${name}; allowed: ${QUERY_PARAMETERS.join(', ')}`,
          field: name,
        };
      }
      // API Gateway keeps the last of repeated parameters; which one was meant is a guess.
      if ((multi[name]?.length ?? 0) > 1)
        return { ok: false, error: `${name} must be given once`, field: name };
    }
    return validateQuery(event.queryStringParameters);
  },
  run: (store, { govIdType, limit }, signal) => store.query(govIdType, limit, signal),
  answer: (_query, persons) => ({ statusCode: 200, body: { persons } }),
};

/**
 * put10: ten creates one after the other in one invocation, each its own request, none
 * started before the last answered: the keep-alive article's function of "10 sequential
 * DynamoDB operations". Not a batch (one request) and not parallel: the quantity is ten round
 * trips on whatever connection the first opened. Each put is a create: a GovId that exists is
 * left as it is and named in a 409; the others are written (ten writes, no transaction).
 */
export const putPersons: Operation<Person[], readonly { GovId: string; outcome: 'created' | 'exists' }[]> = {
  name: 'put10',
  parse(event) {
    const parsed = parseJsonBody(event.body, event.isBase64Encoded);
    return parsed.ok ? validatePersons(parsed.value) : parsed;
  },
  async run(store, persons, signal) {
    const out: { GovId: string; outcome: 'created' | 'exists' }[] = [];
    for (const person of persons)
      out.push({ GovId: person.GovId, outcome: await store.create(person, signal) });
    return out;
  },
  answer(_persons, outcomes) {
    const existing = outcomes.filter((o) => o.outcome === 'exists').map((o) => o.GovId);
    const created = outcomes.length - existing.length;
    return existing.length === 0
      ? { statusCode: 201, body: { created } }
      : {
          statusCode: 409,
          body: {
            error: `${existing.length} of ${outcomes.length} persons already existed and were left as they were: ${existing.join(', ')}`,
            field: 'persons',
            created,
            existing,
          },
        };
  },
};

/** A store method a target lacks is its deployment's mistake (OPERATION_TARGETS), answered as a 503. */
function required<K extends 'view' | 'top10'>(store: PersonStore, method: K): NonNullable<PersonStore[K]> {
  const fn = store[method];
  if (fn === undefined) throw new Error(`${store.name} serves no ${method}`);
  return fn.bind(store) as NonNullable<PersonStore[K]>;
}

/** The top 10 takes no parameters: any is a client mistake, never silently ignored. */
function noParameters(event: APIGatewayProxyEvent): Validation<null> {
  const names = [
    ...Object.keys(event.queryStringParameters ?? {}),
    ...Object.keys(event.multiValueQueryStringParameters ?? {}),
  ];
  return names.length > 0
    ? { ok: false, error: `unknown parameter ${names[0]}; top10 takes none`, field: names[0] }
    : { ok: true, value: null };
}

/** Reads a story (a Person) and counts the view: 200 with the record and its views, 404 when there is none. */
export const viewStory: Operation<string, Story | undefined> = {
  name: 'view',
  parse: (event) => validateGovId(event.pathParameters?.govId, 'govId'),
  run: (store, govId, signal) => required(store, 'view')(govId, signal),
  answer: (govId, story) =>
    story === undefined
      ? notFound(govId)
      : { statusCode: 200, body: { person: story.person, views: story.views } },
};

/** The ten most viewed stories with their views, most first. */
export const topStories: Operation<null, Story[]> = {
  name: 'top10',
  parse: noParameters,
  run: (store, _input, signal) => required(store, 'top10')(signal),
  answer: (_input, stories) => ({
    statusCode: 200,
    body: { stories: stories.map((s) => ({ person: s.person, views: s.views })) },
  }),
};

/** One export per operation for a target's entry file: `fn` is the function's LAB_FUNCTION (readLabFunction). */
export const makeCreateHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, createPerson);
export const makeGetHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, getPerson);
export const makeOverwriteHandler = (store: PersonStore, fn: string) =>
  makeHandler(store, fn, overwritePerson);
export const makeUpdateHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, updatePerson);
export const makeQueryHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, queryPersons);
export const makePut10Handler = (store: PersonStore, fn: string) => makeHandler(store, fn, putPersons);
export const makeViewHandler = (store: PersonStore, fn: string) => makeHandler(store, fn, viewStory);
export const makeTop10Handler = (store: PersonStore, fn: string) => makeHandler(store, fn, topStories);
