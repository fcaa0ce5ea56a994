/**
 * One cheap request per engine that only a working engine answers: the lab's watchdog sends
 * it with a deadline to notice an engine that runs but no longer serves (hung, stopped).
 * Each resolves once the engine answered and rejects on an error or when `signal` aborts.
 */
import { Redis } from 'ioredis';
import { SUPERUSER, socketClient } from './postgres';
import { LOCAL_REGION } from './types';

/** DynamoDB's ListTables (dynalite and DynamoDB Local check the headers' shape, not the signature). */
export async function dynamoDbHealth(endpoint: string, signal: AbortSignal): Promise<void> {
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = amzDate.slice(0, 8);
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      'X-Amz-Date': amzDate,
      Authorization: `AWS4-HMAC-SHA256 Credential=local/${day}/${LOCAL_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: '{"Limit":1}',
    signal,
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`ListTables answered ${res.status}`);
}

/** An HTTP GET that must answer 2xx: the QLDB engine's control plane (ListLedgers). */
export async function httpHealth(url: string, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { signal });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
}

/** Redis's PING, after AUTH; no retry and no reconnect: one try, bounded by signal. */
export async function redisHealth(url: string, signal: AbortSignal): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  const abort = (): void => client.disconnect();
  signal.addEventListener('abort', abort, { once: true });
  try {
    await aborting(signal, client.connect());
    const pong = await aborting(signal, client.ping());
    if (pong !== 'PONG') throw new Error(`PING answered ${pong}`);
  } finally {
    signal.removeEventListener('abort', abort);
    client.disconnect();
  }
}

/** PostgreSQL's SELECT 1 on its private socket. */
export async function postgresHealth(socketDir: string, signal: AbortSignal): Promise<void> {
  const client = socketClient(socketDir, SUPERUSER);
  client.on('error', () => {});
  const abort = (): void => {
    void client.end().catch(() => {});
  };
  signal.addEventListener('abort', abort, { once: true });
  try {
    await aborting(signal, client.connect());
    await aborting(signal, client.query('SELECT 1'));
  } finally {
    signal.removeEventListener('abort', abort);
    // Not awaited: a server that stopped answering may never finish the goodbye either.
    void client.end().catch(() => {});
  }
}

/** The promise, or the abort's reason once signal aborts (whichever comes first). */
function aborting<T>(signal: AbortSignal, promise: Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
