/**
 * How the QLDB endpoint sorts the errors it did not expect. One that happens before anything
 * changed is answered with AWS's internal-error shape (status 500, `InternalFailure`, which SDKs
 * retry) and the endpoint goes on serving; one inside a commit (memory may be ahead of the
 * journal) is a CommitFailure, answered the same way and handed to the process, which stops.
 * The faults are injected where the service offers hooks: its statement observer and its journal.
 */
import type { AddressInfo } from 'node:net';
import { QLDBSessionClient, SendCommandCommand } from '@aws-sdk/client-qldb-session';
import { afterEach, describe, expect, it } from 'vitest';
import { QldbSessionService, statementDigest, stringHash } from '../../targets/qldb/engine';
import { CommitFailure } from '../../targets/qldb/engine/errors';
import { createQldbHttpServer } from '../../targets/qldb/engine/http-endpoint';
import type { Journal } from '../../targets/qldb/engine/journal';

const LEDGER = 'faults';
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

interface Served {
  readonly client: QLDBSessionClient;
  readonly unexpected: Error[];
  readonly commitFailures: CommitFailure[];
}

async function serve(service: QldbSessionService): Promise<Served> {
  const unexpected: Error[] = [];
  const commitFailures: CommitFailure[] = [];
  const server = createQldbHttpServer(service, {
    onUnexpectedError: (err) => unexpected.push(err),
    onCommitFailure: (err) => commitFailures.push(err),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new QLDBSessionClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoint: `http://127.0.0.1:${port}`,
    maxAttempts: 1,
  });
  closers.push(async () => {
    client.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { client, unexpected, commitFailures };
}

async function transaction(
  client: QLDBSessionClient,
): Promise<{ SessionToken: string; TransactionId: string }> {
  const start = await client.send(new SendCommandCommand({ StartSession: { LedgerName: LEDGER } }));
  const SessionToken = start.StartSession?.SessionToken ?? '';
  const txn = await client.send(new SendCommandCommand({ SessionToken, StartTransaction: {} }));
  return { SessionToken, TransactionId: txn.StartTransaction?.TransactionId ?? '' };
}

function failure(err: unknown): { name: string; status?: number } {
  const e = err as Error & { $metadata?: { httpStatusCode?: number } };
  return { name: e.name, status: e.$metadata?.httpStatusCode };
}

describe('an unexpected error before anything changed', () => {
  it('answers InternalFailure (500), reports it, and the endpoint goes on serving', async () => {
    const service = new QldbSessionService({
      ledgers: [LEDGER],
      observer: {
        statement: (event) => {
          if (event.statement.includes('fault')) throw new TypeError('an engine bug');
        },
      },
    });
    const { client, unexpected, commitFailures } = await serve(service);
    const { SessionToken, TransactionId } = await transaction(client);
    const refused = await client
      .send(
        new SendCommandCommand({
          SessionToken,
          ExecuteStatement: { TransactionId, Statement: "SELECT VALUE 'fault' FROM << 1 >>" },
        }),
      )
      .then(
        () => undefined,
        (err: unknown) => failure(err),
      );
    expect(refused).toEqual({ name: 'InternalFailure', status: 500 });
    expect(unexpected.map((e) => e.message)).toEqual(['an engine bug']);
    expect(commitFailures).toEqual([]);
    // The same transaction and the endpoint still work.
    const next = await client.send(
      new SendCommandCommand({
        SessionToken,
        ExecuteStatement: { TransactionId, Statement: 'SELECT VALUE 1 FROM << 1 >>' },
      }),
    );
    expect(next.ExecuteStatement?.FirstPage?.Values).toHaveLength(1);
  });
});

describe('a failure inside a commit', () => {
  it('is a CommitFailure handed to the process, answered InternalFailure (500)', async () => {
    const journal = {
      append: async () => {
        throw new Error('disk full');
      },
      barrier: async () => {},
    } as unknown as Journal;
    const service = new QldbSessionService({ ledgers: [LEDGER], journal });
    const { client, unexpected, commitFailures } = await serve(service);
    const { SessionToken, TransactionId } = await transaction(client);
    const statement = 'CREATE TABLE T';
    await client.send(
      new SendCommandCommand({ SessionToken, ExecuteStatement: { TransactionId, Statement: statement } }),
    );
    const digest = statementDigest(stringHash(TransactionId), statement, []);
    const refused = await client
      .send(
        new SendCommandCommand({ SessionToken, CommitTransaction: { TransactionId, CommitDigest: digest } }),
      )
      .then(
        () => undefined,
        (err: unknown) => failure(err),
      );
    expect(refused).toEqual({ name: 'InternalFailure', status: 500 });
    expect(commitFailures).toHaveLength(1);
    expect(commitFailures[0]).toBeInstanceOf(CommitFailure);
    expect(commitFailures[0].failure.message).toBe('disk full');
    expect(unexpected).toEqual([]);
  });
});
