import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Timing } from '../../core/timing.mjs';

/** A REST API (v1) proxy event with only what the handlers read filled in. */
export function apiEvent(opts: {
  method: 'POST' | 'GET' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: string | null;
  pathParameters?: Record<string, string> | null;
  /** As API Gateway passes them: each name with its values (the single map keeps the last). */
  query?: Record<string, string[]> | null;
  isBase64Encoded?: boolean;
}): APIGatewayProxyEvent {
  const query = opts.query ?? null;
  return {
    httpMethod: opts.method,
    path: opts.path,
    resource: opts.path,
    body: opts.body ?? null,
    isBase64Encoded: opts.isBase64Encoded ?? false,
    headers: { 'content-type': 'application/json' },
    multiValueHeaders: {},
    pathParameters: opts.pathParameters ?? null,
    queryStringParameters:
      query && Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.at(-1) ?? ''])),
    multiValueQueryStringParameters: query,
    stageVariables: null,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  };
}

export const createEvent = (body: unknown) =>
  apiEvent({
    method: 'POST',
    path: '/dynamodb/person',
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

export const getEvent = (govId: string | undefined) =>
  apiEvent({
    method: 'GET',
    path: `/dynamodb/person/${govId}`,
    pathParameters: govId === undefined ? null : { govId },
  });

const bodyText = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body));

export const overwriteEvent = (govId: string | undefined, body: unknown) =>
  apiEvent({
    method: 'PUT',
    path: `/dynamodb/person/${govId}`,
    pathParameters: govId === undefined ? null : { govId },
    body: bodyText(body),
  });

export const updateEvent = (govId: string | undefined, body: unknown) =>
  apiEvent({
    method: 'PATCH',
    path: `/dynamodb/person/${govId}`,
    pathParameters: govId === undefined ? null : { govId },
    body: bodyText(body),
  });

/** `?govIdType=...&limit=...`; a value list repeats the parameter. */
export const queryEvent = (params: Record<string, string | string[]> | null) =>
  apiEvent({
    method: 'GET',
    path: '/dynamodb/person',
    query:
      params && Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v : [v]])),
  });

/** POST /person/{govId}/view: read a story and count the view. */
export const viewEvent = (govId: string | undefined) =>
  apiEvent({
    method: 'POST',
    path: `/dynamodb/person/${govId}/view`,
    pathParameters: govId === undefined ? null : { govId },
  });

/** GET /top10, with any query parameters a test adds (the handler takes none). */
export const top10Event = (params: Record<string, string> | null = null) =>
  apiEvent({
    method: 'GET',
    path: '/dynamodb/top10',
    query: params && Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])),
  });

export function samplePerson(govId: string) {
  return {
    GovId: govId,
    FirstName: 'Ada',
    LastName: 'Lovelace',
    DOB: '1815-12-10',
    GovIdType: 'Passport',
    Address: '12 St James Square, London',
  };
}

export interface ResponseBody {
  person?: Record<string, string>;
  persons?: Record<string, string>[];
  views?: number;
  stories?: { person: Record<string, string>; views: number }[];
  error?: string;
  field?: string;
  timing: Timing;
}

export const bodyOf = (r: { body: string }) => JSON.parse(r.body) as ResponseBody;
