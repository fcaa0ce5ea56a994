/**
 * The throwaway target's PersonStore: one HTTPS request to the Map engine per call, through the
 * lab's network model, on an agent that keeps connections alive or not as KEEP_ALIVE says.
 */
import https from 'node:https';
import type { Socket } from 'node:net';
import { readKeepAlive, requireEnv } from '../../../lambda/shared/env';
import { CONNECTION_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../../lambda/shared/http-client';
import type { Person } from '../../../lambda/shared/person';
import type { PersonStore } from '../../../lambda/shared/person-store';
import type { EngineRequest } from './engine';

/** Where the local lab tells the functions the engine is (its network model's URL). */
export const THROWAWAY_URL_ENV = 'THROWAWAY_URL';

/** The raw quantity its client records: bytes of request bodies sent (cost.ts meters them). */
export const THROWAWAY_SENT_BYTES = 'throwaway.sentBytes';

export function throwawayStoreFromEnv(env: NodeJS.ProcessEnv = process.env): PersonStore {
  const url = new URL(requireEnv(THROWAWAY_URL_ENV, env));
  const agent = new https.Agent({ keepAlive: readKeepAlive(env) === 'on', maxSockets: 50 });
  const seen = new WeakSet<Socket>();
  let opened = 0;
  let sent = 0;
  let sentBytes = 0;

  const call = <T>(request: EngineRequest, signal: AbortSignal): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      sent += 1;
      const req = https.request(
        url,
        {
          method: 'POST',
          agent,
          signal,
          timeout: REQUEST_TIMEOUT_MS,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString()) as { result?: T; error?: string };
            if (res.statusCode !== 200) reject(new Error(`engine answered ${res.statusCode}: ${body.error}`));
            else resolve(body.result as T);
          });
        },
      );
      req.on('socket', (socket: Socket) => {
        if (seen.has(socket)) return;
        seen.add(socket);
        opened += 1;
        // A connect that never completes fails the call instead of waiting for the deadline.
        socket.setTimeout(CONNECTION_TIMEOUT_MS, () => {
          if (socket.connecting)
            req.destroy(new Error(`connect timed out after ${CONNECTION_TIMEOUT_MS} ms`));
        });
        socket.once('connect', () => socket.setTimeout(0));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      const body = JSON.stringify(request);
      sentBytes += Buffer.byteLength(body);
      req.end(body);
    });

  return {
    name: 'Throwaway',
    socketsOpened: () => opened,
    requestsSent: () => sent,
    billed: () => new Map([[THROWAWAY_SENT_BYTES, { quantity: sentBytes, basis: 'measured' as const }]]),
    create: (person, signal) => call<'created' | 'exists'>({ op: 'create', person }, signal),
    get: async (govId, signal) => (await call<Person | null>({ op: 'get', govId }, signal)) ?? undefined,
    overwrite: (person, signal) => call<'replaced' | 'missing'>({ op: 'overwrite', person }, signal),
    update: async (govId, changes, signal) =>
      (await call<Person | null>({ op: 'update', govId, address: changes.Address }, signal)) ?? undefined,
    query: (govIdType, limit, signal) => call<Person[]>({ op: 'query', govIdType, limit }, signal),
  };
}
