/**
 * The QLDB endpoints on one HTTP port, as the AWS SDK v3 clients speak them:
 * - QLDB Session (the data plane the driver uses): AWS JSON 1.0, `POST /` with
 *   `X-Amz-Target: QLDBSession.SendCommand`; blobs (IonBinary, CommitDigest) are base64;
 *   errors are status 400 with `x-amzn-errortype` and `{"__type": "...#Code", "Message"}`.
 * - QLDB control plane (REST-JSON): `POST /ledgers` (CreateLedger), `GET /ledgers/{name}`
 *   (DescribeLedger), `GET /ledgers` (ListLedgers), `PATCH /ledgers/{name}` (UpdateLedger) and
 *   `DELETE /ledgers/{name}` (DeleteLedger), so `AWS_ENDPOINT_URL_QLDB` can point here too.
 *   https://docs.aws.amazon.com/qldb/latest/developerguide/API_Operations_Amazon_QLDB.html
 * SigV4 is not verified (the lab signs with fixed local credentials); the region is read from
 * the signature's credential scope only to build ARNs.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SendCommandRequest } from '@aws-sdk/client-qldb-session';
import { ControlPlaneError, type LedgerDescription } from './control-plane';
import { CommitFailure, QldbError } from './errors';
import type { QldbSessionService } from './session-service';

const SEND_COMMAND_TARGET = 'QLDBSession.SendCommand';
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const DEFAULT_REGION = 'us-east-1';
const LOCAL_ACCOUNT = '000000000000';

export interface QldbHttpEndpointOptions {
  /**
   * Called when a commit failed part-way (memory may be ahead of the journal): the engine's
   * process stops on it. The client has been answered InternalFailure.
   */
  readonly onCommitFailure?: (err: CommitFailure) => void;
  /**
   * Called with any other unexpected error: it happened before anything changed, the client is
   * answered InternalFailure and the engine goes on.
   */
  readonly onUnexpectedError?: (err: Error) => void;
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

/** Status codes of QLDB's control-plane errors (its REST-JSON model). */
const CONTROL_STATUS: Record<ControlPlaneError['code'], number> = {
  InvalidParameterException: 400,
  LimitExceededException: 400,
  ResourceAlreadyExistsException: 409,
  ResourceInUseException: 409,
  ResourceNotFoundException: 404,
  ResourcePreconditionNotMetException: 412,
};

function sendControlError(res: ServerResponse, err: ControlPlaneError): void {
  send(
    res,
    CONTROL_STATUS[err.code],
    {
      Message: err.message,
      ...(err.resourceName ? { ResourceType: 'LEDGER', ResourceName: err.resourceName } : {}),
    },
    { 'x-amzn-errortype': err.code },
  );
}

function regionOf(req: IncomingMessage): string {
  const auth = req.headers.authorization ?? '';
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(auth)?.[1] ?? DEFAULT_REGION;
}

export function createQldbHttpServer(
  service: QldbSessionService,
  options: QldbHttpEndpointOptions = {},
): Server {
  const arn = (name: string, region: string) => `arn:aws:qldb:${region}:${LOCAL_ACCOUNT}:ledger/${name}`;
  const described = (d: LedgerDescription, region: string) => ({ ...d, Arn: arn(d.Name, region) });

  /** QLDB's REST-JSON control plane: CreateLedger, DescribeLedger, ListLedgers, UpdateLedger, DeleteLedger. */
  const controlPlane = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const region = regionOf(req);
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        sendControlError(
          res,
          new ControlPlaneError('InvalidParameterException', 'The request body is not valid JSON'),
        );
        return;
      }
    }
    try {
      if (path === '/ledgers' && req.method === 'POST') {
        const created = await service.control.createLedger({
          Name: typeof body.Name === 'string' ? body.Name : undefined,
          PermissionsMode: typeof body.PermissionsMode === 'string' ? body.PermissionsMode : undefined,
          DeletionProtection:
            typeof body.DeletionProtection === 'boolean' ? body.DeletionProtection : undefined,
        });
        const { EncryptionDescription: _e, ...rest } = created;
        send(res, 200, { ...rest, Arn: arn(created.Name, region), KmsKeyArn: 'AWS_OWNED_KMS_KEY' });
        return;
      }
      if (path === '/ledgers' && req.method === 'GET') {
        send(res, 200, { Ledgers: service.control.listLedgers() });
        return;
      }
      const name = decodeURIComponent(path.slice('/ledgers/'.length));
      if (name.includes('/')) {
        sendControlError(
          res,
          new ControlPlaneError(
            'InvalidParameterException',
            `${req.method} ${path} is not a QLDB operation the local engine serves`,
          ),
        );
        return;
      }
      switch (req.method) {
        case 'GET':
          send(res, 200, described(service.control.describeLedger(name), region));
          return;
        case 'PATCH':
          send(
            res,
            200,
            described(
              await service.control.updateLedger(name, {
                DeletionProtection:
                  typeof body.DeletionProtection === 'boolean' ? body.DeletionProtection : undefined,
              }),
              region,
            ),
          );
          return;
        case 'DELETE':
          await service.control.deleteLedger(name);
          send(res, 200, {});
          return;
        default:
          sendControlError(
            res,
            new ControlPlaneError(
              'InvalidParameterException',
              `${req.method} ${path} is not a QLDB operation`,
            ),
          );
      }
    } catch (err) {
      if (err instanceof ControlPlaneError) sendControlError(res, err);
      else throw err;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/ledgers' || path.startsWith('/ledgers/')) {
      await controlPlane(req, res, path);
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
    const output = await service.send(decodeSendCommand(parsed));
    send(res, 200, output);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((caught: unknown) => {
      const err = caught instanceof Error ? caught : new Error(String(caught));
      if (err instanceof QldbError) {
        if (!res.headersSent) sendError(res, 400, 'com.amazonaws.qldbsession', err.code, err.message);
        return;
      }
      // AWS's common error for a failure of the service itself (status 500, which SDKs retry).
      if (!res.headersSent)
        sendError(
          res,
          500,
          'com.amazonaws.qldbsession',
          'InternalFailure',
          'The request processing has failed because of an unknown error, exception or failure.',
        );
      if (err instanceof CommitFailure) options.onCommitFailure?.(err);
      else options.onUnexpectedError?.(err);
    });
  });
  // Keep idle connections as long as the lab's other engines do (about a minute, as AWS does),
  // then close them silently as dynalite-server.mjs does: no Keep-Alive header for the client to
  // obey early, a socket with no bytes either way for idleTimeoutS destroyed.
  server.keepAliveTimeout = 0;
  server.timeout = (options.idleTimeoutS ?? 60) * 1000;
  return server;
}
