/**
 * The local stage's request validator: a method whose template requires a query parameter
 * (the query's govIdType) is answered 400 as API Gateway answers it, after authorization and
 * before any invocation.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { AssemblyFunction } from '../../local/assembly/cloud-assembly';
import { signRequest } from '../../local/auth/sigv4';
import {
  type ApiServer,
  compileRoute,
  type Integration,
  startApiServer,
} from '../../local/server/api-gateway';

const fn = { name: 'dynamodb-query' } as AssemblyFunction;
const creds = { accessKeyId: 'CALLER', secretAccessKey: 'secret' };

describe('required query parameters', () => {
  let server: ApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(iam: boolean) {
    const events: APIGatewayProxyEvent[] = [];
    const integration: Integration = {
      invoke: async (event) => {
        events.push(event as APIGatewayProxyEvent);
        return { ok: true, requestId: 'r', durationMs: 1, response: { statusCode: 200, body: '{}' } };
      },
    };
    server = await startApiServer({
      routes: [
        compileRoute(
          { method: 'GET', path: '/dynamodb/person', function: fn, requiredQuery: ['govIdType'] },
          integration,
        ),
        compileRoute({ method: 'POST', path: '/dynamodb/person', function: fn }, integration),
      ],
      stage: 'lab',
      host: '127.0.0.1',
      port: 0,
      iam: iam ? { credentials: creds } : undefined,
    });
    return { url: server.url, events };
  }

  it('400 with API Gateway message and error type, nothing invoked; present (even empty) reaches the function', async () => {
    const { url, events } = await serve(false);
    for (const q of ['', '?limit=5', '?govidtype=Passport']) {
      const r = await fetch(`${url}/dynamodb/person${q}`, { signal: AbortSignal.timeout(5000) });
      expect(r.status, q).toBe(400);
      expect(r.headers.get('x-amzn-errortype')).toBe('BadRequestException');
      expect(await r.json()).toEqual({ message: 'Missing required request parameters: [govIdType]' });
    }
    expect(events).toHaveLength(0);
    for (const q of ['?govIdType=Driver%20License&limit=3', '?govIdType=']) {
      const r = await fetch(`${url}/dynamodb/person${q}`, { signal: AbortSignal.timeout(5000) });
      expect(r.status, q).toBe(200);
    }
    expect(events.map((e) => e.queryStringParameters)).toEqual([
      { govIdType: 'Driver License', limit: '3' },
      { govIdType: '' },
    ]);
    // The POST on the same resource requires nothing.
    const post = await fetch(`${url}/dynamodb/person`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(200);
  });

  it('authorization comes first: an unsigned request without the parameter is 403, a signed one 400', async () => {
    const { url, events } = await serve(true);
    const unsigned = await fetch(`${url}/dynamodb/person`);
    expect(unsigned.status).toBe(403);
    const target = `${url}/dynamodb/person?limit=2`;
    const headers = await signRequest({ method: 'GET', url: target, headers: {} }, creds, 'us-east-1');
    const signed = await fetch(target, { headers });
    expect(signed.status).toBe(400);
    expect(events).toHaveLength(0);
  });
});
