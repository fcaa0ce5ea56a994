import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Timing } from '../../core/timing.mjs';

/** A REST API (v1) proxy event with only what the handlers read filled in. */
export function apiEvent(opts: {
  method: 'POST' | 'GET' | 'PUT' | 'DELETE';
  path: string;
  body?: string | null;
  pathParameters?: Record<string, string> | null;
  isBase64Encoded?: boolean;
}): APIGatewayProxyEvent {
  return {
    httpMethod: opts.method,
    path: opts.path,
    resource: opts.path,
    body: opts.body ?? null,
    isBase64Encoded: opts.isBase64Encoded ?? false,
    headers: { 'content-type': 'application/json' },
    multiValueHeaders: {},
    pathParameters: opts.pathParameters ?? null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
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
  error?: string;
  field?: string;
  timing: Timing;
}

export const bodyOf = (r: { body: string }) => JSON.parse(r.body) as ResponseBody;
