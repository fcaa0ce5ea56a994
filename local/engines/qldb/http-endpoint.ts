/**
 * The QLDB endpoints on one HTTP port, as the AWS SDK v3 clients speak them:
 * - QLDB Session (the data plane the driver uses): AWS JSON 1.0, `POST /` with
 *   `X-Amz-Target: QLDBSession.SendCommand`; blobs (IonBinary, CommitDigest) are base64;
 *   errors are status 400 with `x-amzn-errortype` and `{"__type": "...#Code", "Message"}`.
 * - QLDB control plane (REST-JSON), the read-only part: `GET /ledgers/{name}` (DescribeLedger)
 *   and `GET /ledgers` (ListLedgers), so `AWS_ENDPOINT_URL_QLDB` can point here too.
 * SigV4 is not verified (the lab signs with fixed local credentials); the region is read from
 * the signature's credential scope only to build ARNs.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SendCommandRequest } from '@aws-sdk/client-qldb-session';
import { QldbError } from './errors';
import type { QldbSessionService } from './session-service';

const SEND_COMMAND_TARGET = 'QLDBSession.SendCommand';
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const DEFAULT_REGION = 'us-east-1';
const LOCAL_ACCOUNT = '000000000000';

export interface QldbHttpEndpointOptions {
  /** Called with each unexpected failure (not QLDB exceptions answered to the client). */
  readonly onInternalError?: (err: Error) => void;
  /** Close connections idle this long, s, as the lab's other engines do. @default 60 */
  readonly idleTimeoutS?: number;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(QldbError.badRequest('Request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // Uint8Array fields (IonBinary, CommitDigest) travel as base64, as AWS JSON encodes blobs.
  const text = JSON.stringify(body, (_key, value: unknown) =>
    value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value,
  );
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  namespace: string,
  code: string,
  message: string,
): void {
  send(
    res,
    status,
    { __type: `${namespace}#${code}`, Message: message, message },
    { 'x-amzn-errortype': code },
  );
}

function base64Field(value: unknown, name: string): Uint8Array | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw QldbError.badRequest(`${name} must be a base64 string`);
  return new Uint8Array(Buffer.from(value, 'base64'));
}

/** The JSON body as the SDK types it: blobs decoded from base64. */
export function decodeSendCommand(body: unknown): SendCommandRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw QldbError.badRequest('The request body must be a JSON object');
  }
  const input = body as Record<string, Record<string, unknown> | undefined> & SendCommandRequest;
  const execute = input.ExecuteStatement;
  const commit = input.CommitTransaction;
  const parameters = execute?.Parameters;
  if (parameters !== undefined && !Array.isArray(parameters)) {
    throw QldbError.badRequest('ExecuteStatement.Parameters must be a list');
  }
  return {
    ...input,
    ...(execute
      ? {
          ExecuteStatement: {
            ...input.ExecuteStatement,
            TransactionId: String(execute.TransactionId ?? ''),
            Statement: String(execute.Statement ?? ''),
            Parameters: (parameters ?? []).map((p: { IonBinary?: unknown; IonText?: unknown }) => ({
              IonBinary: base64Field(p?.IonBinary, 'IonBinary'),
              IonText: typeof p?.IonText === 'string' ? p.IonText : undefined,
            })),
          },
        }
      : {}),
    ...(commit
      ? {
          CommitTransaction: {
            TransactionId: String(commit.TransactionId ?? ''),
            CommitDigest: base64Field(commit.CommitDigest, 'CommitDigest') ?? new Uint8Array(),
          },
        }
      : {}),
  };
}

function regionOf(req: IncomingMessage): string {
  const auth = req.headers.authorization ?? '';
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(auth)?.[1] ?? DEFAULT_REGION;
}

export function createQldbHttpServer(
  service: QldbSessionService,
  options: QldbHttpEndpointOptions = {},
): Server {
  const startedAt = Math.floor(Date.now() / 1000);

  const ledgerDescription = (name: string, region: string) => ({
    Name: name,
    Arn: `arn:aws:qldb:${region}:${LOCAL_ACCOUNT}:ledger/${name}`,
    State: 'ACTIVE',
    CreationDateTime: startedAt,
    PermissionsMode: 'STANDARD',
    DeletionProtection: false,
  });

  const controlPlane = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const ns = 'com.amazonaws.qldb';
    if (req.method !== 'GET') {
      sendError(res, 400, ns, 'InvalidParameterException', `${req.method} ${path} is not supported locally`);
      return;
    }
    if (path === '/ledgers') {
      send(res, 200, {
        Ledgers: service
          .ledgerNames()
          .map((Name) => ({ Name, State: 'ACTIVE', CreationDateTime: startedAt })),
      });
      return;
    }
    const name = decodeURIComponent(path.slice('/ledgers/'.length));
    if (name.includes('/')) {
      sendError(res, 400, ns, 'InvalidParameterException', `${path} is not supported locally`);
    } else if (!service.ledgerExists(name)) {
      send(
        res,
        404,
        { Message: `Ledger ${name} does not exist`, ResourceType: 'LEDGER', ResourceName: name },
        {
          'x-amzn-errortype': 'ResourceNotFoundException',
        },
      );
    } else {
      send(res, 200, ledgerDescription(name, regionOf(req)));
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/ledgers' || path.startsWith('/ledgers/')) {
      req.resume();
      controlPlane(req, res, path);
      return;
    }
    const ns = 'com.amazonaws.qldbsession';
    const target = req.headers['x-amz-target'];
    const body = await readBody(req);
    if (req.method !== 'POST' || target !== SEND_COMMAND_TARGET) {
      sendError(
        res,
        400,
        ns,
        'UnknownOperationException',
        `Unknown operation ${req.method} ${path} ${target ?? '(no X-Amz-Target)'}`,
      );
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      sendError(res, 400, ns, 'SerializationException', 'The request body is not valid JSON');
      return;
    }
    try {
      const output = await service.send(decodeSendCommand(parsed));
      send(res, 200, output);
    } catch (err) {
      if (err instanceof QldbError) {
        sendError(res, 400, ns, err.code, err.message);
        return;
      }
      options.onInternalError?.(err as Error);
      sendError(res, 500, ns, 'InternalFailure', `Internal failure: ${(err as Error).message}`);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (err instanceof QldbError) sendError(res, 400, 'com.amazonaws.qldbsession', err.code, err.message);
      else {
        options.onInternalError?.(err);
        if (!res.headersSent)
          sendError(res, 500, 'com.amazonaws.qldbsession', 'InternalFailure', err.message);
      }
    });
  });
  // Keep idle connections as long as the lab's other engines do (about a minute, as AWS does),
  // then close them silently as dynalite-server.mjs does: no Keep-Alive header for the client to
  // obey early, a socket with no bytes either way for idleTimeoutS destroyed.
  server.keepAliveTimeout = 0;
  server.timeout = (options.idleTimeoutS ?? 60) * 1000;
  return server;
}
