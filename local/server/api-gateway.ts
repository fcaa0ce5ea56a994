/**
 * A REST API (v1) stage in front of the function pools, answering as API Gateway does:
 * proxy events in, proxy results out, its own error bodies for unknown routes, oversize
 * bodies and failed integrations.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AwsCredentialIdentity } from '@smithy/types';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Route } from '../assembly/cloud-assembly';
import { verifyRequest } from '../auth/sigv4';
import type { FunctionPool, Invocation } from '../host/function-pool';

/** API Gateway's payload limit. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export interface CompiledRoute {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly params: string[];
  readonly pool: FunctionPool;
}

export function compileRoute(route: Route, pool: FunctionPool): CompiledRoute {
  const params: string[] = [];
  const source = route.path
    .split('/')
    .map((seg) => {
      const m = /^\{(\w+)\+?\}$/.exec(seg);
      if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      params.push(m[1]);
      return '([^/]+)';
    })
    .join('/');
  return { method: route.method, template: route.path, pattern: new RegExp(`^${source}/?$`), params, pool };
}

export function matchRoute(
  routes: readonly CompiledRoute[],
  method: string,
  path: string,
): { route: CompiledRoute; pathParameters: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method && route.method !== 'ANY') continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const pathParameters: Record<string, string> = {};
    route.params.forEach((p, i) => {
      const raw = m[i + 1];
      try {
        pathParameters[p] = decodeURIComponent(raw);
      } catch {
        pathParameters[p] = raw;
      }
    });
    return { route, pathParameters };
  }
  return undefined;
}

export interface ApiServerOptions {
  readonly routes: readonly CompiledRoute[];
  readonly stage: string;
  readonly host: string;
  readonly port: number;
  /** IAM authorization: only requests SigV4-signed with these credentials get through. */
  readonly iam?: { readonly credentials: AwsCredentialIdentity };
  /** Called once per request with what happened, for progress and logs. */
  readonly onRequest?: (r: { method: string; path: string; status: number; invocation?: Invocation }) => void;
}

export interface ApiServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const json = (
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
};

function toEvent(
  req: http.IncomingMessage,
  url: URL,
  stage: string,
  resourcePath: string,
  path: string,
  pathParameters: Record<string, string>,
  body: Buffer,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const [k, v] = [req.rawHeaders[i], req.rawHeaders[i + 1]];
    headers[k] = v;
    multiValueHeaders[k] = [...(multiValueHeaders[k] ?? []), v];
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    multiQuery[k] = [...(multiQuery[k] ?? []), v];
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: resourcePath,
    path,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    body: body.length > 0 ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: undefined,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: req.method ?? 'GET',
      identity: {
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/${stage}${path}`,
      stage,
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath,
    },
  };
}

function isProxyResult(v: unknown): v is APIGatewayProxyResult {
  return typeof v === 'object' && v !== null && typeof (v as APIGatewayProxyResult).statusCode === 'number';
}

/** What API Gateway answers when the integration fails, by failure kind. */
function integrationFailure(res: http.ServerResponse, inv: Extract<Invocation, { ok: false }>): number {
  if (inv.reason === 'throttled') {
    json(res, 429, { message: 'Too Many Requests' });
    return 429;
  }
  json(
    res,
    502,
    { message: 'Internal server error' },
    { 'x-amzn-errortype': 'InternalServerErrorException' },
  );
  return 502;
}

/**
 * The whole body, or undefined past API Gateway's limit (the rest is drained, not kept).
 * Plain events rather than `for await`: the async iterator cost ~0.1 ms per request here,
 * even for a GET without a body, and every request pays it.
 */
function readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    req.once('end', () => resolve(size > MAX_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks, size)));
    req.once('error', reject);
  });
}

export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const prefix = `/${opts.stage}`;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const done = (status: number, invocation?: Invocation) =>
      opts.onRequest?.({ method, path: url.pathname, status, invocation });
    const path = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : undefined;
    const match = path === undefined ? undefined : matchRoute(opts.routes, method, path);
    if (!match || path === undefined) {
      // REST APIs answer 403 for a route or method that does not exist.
      json(
        res,
        403,
        { message: 'Missing Authentication Token' },
        { 'x-amzn-errortype': 'MissingAuthenticationTokenException' },
      );
      req.resume();
      return done(403);
    }
    let body: Buffer | undefined;
    try {
      body = await readBody(req);
    } catch {
      // The client went away mid-body: nobody is left to answer, and nothing was invoked.
      res.destroy();
      return;
    }
    if (body === undefined) {
      json(res, 413, { message: 'Request Too Long' });
      return done(413);
    }
    if (opts.iam) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const verdict = await verifyRequest(
        {
          method,
          url: `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`,
          headers,
          body: body.toString('utf8'),
        },
        opts.iam.credentials,
      );
      if (!verdict.ok) {
        json(
          res,
          verdict.status,
          { message: verdict.message },
          { 'x-amzn-errortype': 'IncompleteSignatureException' },
        );
        return done(verdict.status);
      }
    }
    const event = toEvent(req, url, opts.stage, match.route.template, path, match.pathParameters, body);
    const inv = await match.route.pool.invoke(event);
    if (!inv.ok) return done(integrationFailure(res, inv), inv);
    if (!isProxyResult(inv.response)) {
      json(res, 502, { message: 'Internal server error' });
      return done(502, inv);
    }
    const r = inv.response;
    const out = r.isBase64Encoded ? Buffer.from(r.body ?? '', 'base64') : Buffer.from(r.body ?? '', 'utf8');
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(r.headers ?? {})) headers[k] = String(v);
    for (const [k, v] of Object.entries(r.multiValueHeaders ?? {})) headers[k] = v.map(String);
    headers['content-length'] = String(out.length);
    res.writeHead(r.statusCode, headers);
    res.end(out);
    done(r.statusCode, inv);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}${prefix}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
