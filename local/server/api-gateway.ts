/**
 * A REST API (v1) stage in front of the function pools, answering as API Gateway does:
 * proxy events in, proxy results out, its own error bodies for unknown routes, oversize
 * bodies and failed integrations.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isRecord } from '../../core/timing.mjs';
import type { Route } from '../assembly/cloud-assembly';
import { type IamAuthority, verifyRequest } from '../auth/sigv4';
import type { FunctionPool, Invocation } from '../host/function-pool';

/** API Gateway's payload limit. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export interface CompiledRoute {
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  readonly params: string[];
  readonly pool: Integration;
  /** Query parameters the request validator requires. */
  readonly requiredQuery: readonly string[];
}

/** What a route invokes: a function pool, or a stand-in for one in tests. */
export type Integration = Pick<FunctionPool, 'invoke'>;

export function compileRoute(route: Route, pool: Integration): CompiledRoute {
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
  return {
    method: route.method,
    template: route.path,
    pattern: new RegExp(`^${source}/?$`),
    params,
    pool,
    requiredQuery: route.requiredQuery ?? [],
  };
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
  /** IAM authorization: only requests SigV4-signed by one of these principals, in this region, get through. */
  readonly iam?: IamAuthority;
  /** Called once per request with what happened, for progress and logs. */
  readonly onRequest?: (r: { method: string; path: string; status: number; invocation?: Invocation }) => void;
  /** Where the server reports what it answered 5xx for and why. @default console.error */
  readonly log?: (line: string) => void;
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

/** The request's headers as the proxy event carries them, and as SigV4 reads them. */
interface RequestHeaders {
  /** As sent, the last value of a repeated name (the event's `headers`). */
  readonly headers: Record<string, string>;
  /** As sent, every value (the event's `multiValueHeaders`). */
  readonly multiValueHeaders: Record<string, string[]>;
  /** By lower-case name, every value of every header as sent; only when IAM needs it. */
  readonly lowerCase?: Map<string, string[]>;
  /** A Content-Length other than 0 or a Transfer-Encoding was sent: there is a body to read. */
  readonly hasBody: boolean;
}

/**
 * One pass over what the parser already holds (rawHeaders): the event's two header maps, the
 * lower-case map the SigV4 check reads, and whether a body follows, each value appended, never
 * copied again.
 */
function collectHeaders(raw: readonly string[], lowerCase: boolean): RequestHeaders {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const lower = lowerCase ? new Map<string, string[]>() : undefined;
  let hasBody = false;
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i];
    const v = raw[i + 1];
    const seen = Object.hasOwn(multiValueHeaders, k) ? multiValueHeaders[k] : undefined;
    if (k === '__proto__') {
      // A header like any other: an own property, never the object's prototype.
      defineOwn(headers, k, v);
      if (seen === undefined) defineOwn(multiValueHeaders, k, [v]);
      else seen.push(v);
    } else {
      headers[k] = v;
      if (seen === undefined) multiValueHeaders[k] = [v];
      else seen.push(v);
    }
    // Lower-cased once, and only where it may matter: the framing headers, or SigV4's map.
    let name: string | undefined;
    if (lower !== undefined) {
      name = k.toLowerCase();
      const same = lower.get(name);
      if (same === undefined) lower.set(name, [v]);
      else same.push(v);
    }
    if (k.length === 14 || k.length === 17) {
      name ??= k.toLowerCase();
      if ((name === 'content-length' && v !== '0') || name === 'transfer-encoding') hasBody = true;
    }
  }
  return { headers, multiValueHeaders, lowerCase: lower, hasBody };
}

function defineOwn<T>(o: Record<string, T>, k: string, value: T): void {
  Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
}

function toEvent(
  req: http.IncomingMessage,
  url: URL,
  stage: string,
  resourcePath: string,
  path: string,
  pathParameters: Record<string, string>,
  body: Buffer,
  { headers, multiValueHeaders }: RequestHeaders,
): APIGatewayProxyEvent {
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  let hasQuery = false;
  // Most requests carry no query: skip URLSearchParams' iterator for them.
  if (url.search.length > 1) {
    for (const [k, v] of url.searchParams) {
      hasQuery = true;
      query[k] = v;
      const seen = Object.hasOwn(multiQuery, k) ? multiQuery[k] : undefined;
      if (seen === undefined) multiQuery[k] = [v];
      else seen.push(v);
    }
  }
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

/** A proxy result API Gateway would pass on; anything else is a malformed Lambda proxy response. */
export interface ValidProxyResult {
  readonly statusCode: number;
  readonly headers: [string, string][];
  /**
   * The body as Node writes it: the function's text as is (utf8), or the bytes of a base64
   * body one char per byte (latin1). A string either way, so Node joins it to the head in one
   * write; no Buffer is made for the common text body.
   */
  readonly body: string;
  readonly encoding: 'utf8' | 'latin1';
  /** The body's length in bytes (Content-Length). */
  readonly length: number;
}

// Headers that frame the message belong to the host, not the function: API Gateway remaps or drops them.
const HOP_BY_HOP = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
]);

const NON_ASCII = /[\u0080-\uffff]/;

function headerOk(name: string, value: string): boolean {
  try {
    http.validateHeaderName(name);
    http.validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a Lambda proxy result the way API Gateway does before anything is written:
 * an integer status (1xx cannot end an exchange, so 200-599 here), string header values,
 * arrays of strings in multiValueHeaders, a string body. Returns why not, or the response.
 */
export function validateProxyResult(v: unknown): ValidProxyResult | string {
  if (!isRecord(v)) return 'result is not an object';
  const { statusCode, headers, multiValueHeaders, body, isBase64Encoded } = v;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 200 || statusCode > 599)
    return `statusCode ${JSON.stringify(statusCode)} is not an integer in 200-599`;
  if (body !== undefined && body !== null && typeof body !== 'string') return 'body is not a string';
  if (isBase64Encoded !== undefined && isBase64Encoded !== null && typeof isBase64Encoded !== 'boolean')
    return 'isBase64Encoded is not a boolean';
  const out: [string, string][] = [];
  if (headers !== undefined && headers !== null) {
    if (!isRecord(headers)) return 'headers is not an object';
    for (const [k, value] of Object.entries(headers)) {
      if (typeof value !== 'string') return `header ${k} is not a string`;
      if (!headerOk(k, value)) return `header ${k} is not a valid HTTP header`;
      out.push([k, value]);
    }
  }
  if (multiValueHeaders !== undefined && multiValueHeaders !== null) {
    if (!isRecord(multiValueHeaders)) return 'multiValueHeaders is not an object';
    for (const [k, values] of Object.entries(multiValueHeaders)) {
      if (!Array.isArray(values)) return `multiValueHeaders.${k} is not an array`;
      for (const value of values) {
        if (typeof value !== 'string') return `multiValueHeaders.${k} holds a non-string`;
        if (!headerOk(k, value)) return `multiValueHeaders.${k} is not a valid HTTP header`;
        out.push([k, value]);
      }
    }
  }
  const text = typeof body === 'string' ? body : '';
  const headersOut = out.filter(([k]) => !HOP_BY_HOP.has(k.toLowerCase()));
  // Node writes the head as latin1 and joins a string body to it in the body's encoding: a head
  // with a byte above 0x7f (a header value like "caf\u00e9") needs the body as latin1 too.
  if (isBase64Encoded === true || headersOut.some(([k, v]) => NON_ASCII.test(k) || NON_ASCII.test(v))) {
    const bytes = Buffer.from(text, isBase64Encoded === true ? 'base64' : 'utf8');
    return {
      statusCode,
      headers: headersOut,
      body: bytes.toString('latin1'),
      encoding: 'latin1',
      length: bytes.length,
    };
  }
  return { statusCode, headers: headersOut, body: text, encoding: 'utf8', length: Buffer.byteLength(text) };
}

const INTERNAL_ERROR = { message: 'Internal server error' };
const INTERNAL_ERROR_TYPE = { 'x-amzn-errortype': 'InternalServerErrorException' };

/**
 * What API Gateway answers when the integration fails, by failure kind: 502 for a function
 * error, crash or timeout, 500 when Lambda throttles (here: no free environment in time).
 */
function integrationFailure(res: http.ServerResponse, inv: Extract<Invocation, { ok: false }>): number {
  const status = inv.reason === 'throttled' ? 500 : 502;
  json(res, status, INTERNAL_ERROR, INTERNAL_ERROR_TYPE);
  return status;
}

/**
 * The request target as a URL on a fixed base: origin-form (`/lab/x?a=1`) or absolute-form
 * (`http://host/lab/x`, which servers must accept), keeping only its path and query.
 * The Host header never takes part. Undefined when the target is neither.
 */
export function parseTarget(target: string | undefined): URL | undefined {
  if (!target) return undefined;
  try {
    // Concatenated, not resolved against a base: `//evil/x` is a path here, not another host.
    if (target.startsWith('/')) return new URL(`http://localhost${target}`);
    const absolute = new URL(target);
    if (absolute.protocol !== 'http:' && absolute.protocol !== 'https:') return undefined;
    return new URL(`http://localhost${absolute.pathname}${absolute.search}`);
  } catch {
    return undefined;
  }
}

/**
 * The request target's path and query exactly as the client sent them (absolute-form reduced
 * to its path): the signature covers the path as sent, not as a URL parser normalizes it.
 */
export function rawOriginForm(target: string): string {
  if (target.startsWith('/')) return target;
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*(.*)$/i.exec(target);
  const rest = m ? m[1] : target;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

const STATUS_FOR_PARSE_ERROR: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/** Writes a whole error response on a raw socket and closes it: there is no ServerResponse to use. */
function answerRaw(socket: Duplex, status: number): void {
  // Node no longer watches a CONNECT socket for errors: a reset there must not crash the host.
  if (socket.listenerCount('error') === 0) socket.on('error', () => socket.destroy());
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const reason = http.STATUS_CODES[status] ?? 'Bad Request';
  const body = JSON.stringify({ message: reason });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Malformed HTTP never reaches the request handler: answer it on the raw socket (400, or
 * 431/408). A response still being produced for an earlier, complete request on the same
 * connection (pipelining) goes out first, so a good request's answer is never lost to the
 * junk after it. When the broken part is the body of the request in hand (bad chunking, a
 * hang-up mid-body), that request cannot complete: answer at once.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = STATUS_FOR_PARSE_ERROR[err.code ?? ''] ?? 400;
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished && inFlight.req.complete) {
    inFlight.once('close', () => answerRaw(socket, status));
  } else {
    answerRaw(socket, status);
  }
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

const EMPTY = Buffer.alloc(0);

export async function startApiServer(opts: ApiServerOptions): Promise<ApiServer> {
  const prefix = `/${opts.stage}`;
  const log = opts.log ?? ((line: string) => console.error(line));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = parseTarget(req.url);
    const done = (status: number, invocation?: Invocation) =>
      opts.onRequest?.({ method, path: url?.pathname ?? req.url ?? '', status, invocation });
    if (!url) {
      json(res, 400, { message: 'Bad Request' });
      req.resume();
      return done(400);
    }
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
    const sent = collectHeaders(req.rawHeaders, opts.iam !== undefined);
    let body: Buffer | undefined;
    try {
      // A request with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 6.3);
      // the server drains what is left. Most GETs: no wait for 'end' on the request path.
      body = sent.hasBody ? await readBody(req) : EMPTY;
    } catch {
      // The client went away mid-body: nobody is left to answer, and nothing was invoked.
      res.destroy();
      return;
    }
    if (body === undefined) {
      json(res, 413, { message: 'Request Too Long' });
      return done(413);
    }
    if (opts.iam && sent.lowerCase) {
      // Every value of every header as sent, by lower-case name: a repeated signed header is
      // signed with all of them, and a header named __proto__ is a header like any other.
      const verdict = verifyRequest(
        { method, target: rawOriginForm(req.url ?? '/'), headers: sent.lowerCase, body },
        opts.iam,
      );
      if (!verdict.ok) {
        json(res, verdict.status, { message: verdict.message }, { 'x-amzn-errortype': verdict.errorType });
        return done(verdict.status);
      }
    }
    // After authorization, before the integration, as API Gateway's request validator runs.
    const missing = match.route.requiredQuery.filter((name) => !url.searchParams.has(name));
    if (missing.length > 0) {
      json(
        res,
        400,
        { message: `Missing required request parameters: [${missing.join(', ')}]` },
        { 'x-amzn-errortype': 'BadRequestException' },
      );
      return done(400);
    }
    const event = toEvent(req, url, opts.stage, match.route.template, path, match.pathParameters, body, sent);
    let status: number | undefined;
    const answer = (inv: Invocation) => {
      status = respond(res, inv, `${method} ${url.pathname}`);
    };
    // The pool calls answer as soon as the outcome is known, before its END and REPORT lines;
    // an integration that does not (a stand-in) is answered here.
    const inv = await match.route.pool.invoke(event, answer);
    if (status === undefined) answer(inv);
    done(status ?? 500, inv);
  }

  /** Writes what API Gateway answers for an invocation; returns the status. */
  function respond(res: http.ServerResponse, inv: Invocation, what: string): number {
    if (!inv.ok) {
      if (inv.reason === 'throttled') log(`${what}: 500, ${inv.message}`);
      return integrationFailure(res, inv);
    }
    const r = validateProxyResult(inv.response);
    if (typeof r === 'string') {
      log(`${what}: 502, malformed Lambda proxy response: ${r}`);
      json(res, 502, INTERNAL_ERROR, INTERNAL_ERROR_TYPE);
      return 502;
    }
    // Head and body leave in one write (Node joins a string body to the head), with a length, never chunked.
    const head: string[] = [];
    for (const [k, v] of r.headers) head.push(k, v);
    head.push('content-length', String(r.length));
    res.writeHead(r.statusCode, head);
    res.end(r.body, r.encoding);
    return r.statusCode;
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // Whatever goes wrong with one request is that request's 500, never the host's exit.
      log(`${req.method} ${req.url}: 500, ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      try {
        // Already answered (a throw after the response, e.g. in onRequest): the log is all.
        if (res.writableEnded) return;
        if (res.headersSent) res.destroy();
        else json(res, 500, INTERNAL_ERROR, INTERNAL_ERROR_TYPE);
      } catch {
        res.destroy();
      }
    });
  });
  server.on('clientError', answerClientError);
  // CONNECT's target is an authority, not a path on this API: refuse it rather than drop the connection.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) => answerRaw(socket, 400));
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
