/**
 * The HTTP layer under every SDK client: the keep-alive toggle, socket counting and
 * deliberate timeouts.
 *
 * SDK v3 keeps connections alive by default, so "off" has to be built explicitly with
 * an agent whose keepAlive is false. Counting sockets on the agent is how each response
 * says whether its database call opened a new connection.
 */

import type { ClientRequestArgs } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { type KeepAliveVariant, readKeepAlive, readTlsMaxVersion, type TlsMaxVersion } from './env';

/**
 * Timeouts, chosen so a dead database answers within a Lambda timeout instead of hanging:
 * - connect 1 s: a TCP+TLS set-up in one region takes milliseconds; 1 s means unreachable.
 * - request 2 s: no single DynamoDB or QLDB call in this lab reads more than one item.
 * - attempts 2: one retry absorbs a dropped idle connection (the provisioned-concurrency
 *   article saw idle sockets closed after ~60 s) without stacking waits.
 * - deadline 5 s: an AbortSignal over the whole call, retries included, well under the
 *   function timeout (10 s), so the handler always has time to answer 503.
 */
export const CONNECTION_TIMEOUT_MS = 1000;
export const REQUEST_TIMEOUT_MS = 2000;
export const MAX_ATTEMPTS = 2;
export const DB_DEADLINE_MS = 5000;

interface Counter {
  opened: number;
  requests: number;
}

/**
 * Counts sockets as the agent creates them and requests as it is handed them; one counter
 * serves the http and https agents. The agent sees every request, including those of a
 * client that builds its own handler from these options (the QLDB driver does).
 */
function counting<A extends http.Agent>(agent: A, counter: Counter): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (
    options: ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ) => {
    counter.opened += 1;
    return create(options, callback);
  };
  // addRequest is how every ClientRequest reaches its agent (node:_http_client).
  const agentWithAdd = agent as unknown as { addRequest: (...args: unknown[]) => void };
  const add = agentWithAdd.addRequest.bind(agent);
  agentWithAdd.addRequest = (...args: unknown[]) => {
    counter.requests += 1;
    add(...args);
  };
  return agent;
}

export interface LabHttp {
  /** Sockets opened since this execution environment started. */
  socketsOpened(): number;
  /** HTTP requests sent since this execution environment started, retries included. */
  requestsSent(): number;
  readonly options: NodeHttpHandlerOptions;
  readonly handler: NodeHttpHandler;
}

/**
 * @param requestTimeoutMs one request's limit; the handlers keep the default, the QLDB tables
 *   custom resource gives CREATE TABLE and CREATE INDEX on a new ledger longer (its function has 90 s)
 * @param tlsMaxVersion the newest TLS version the https agent offers. @default Node's (1.3)
 */
export function createLabHttp(
  keepAlive: KeepAliveVariant,
  requestTimeoutMs = REQUEST_TIMEOUT_MS,
  tlsMaxVersion?: TlsMaxVersion,
): LabHttp {
  const counter: Counter = { opened: 0, requests: 0 };
  const agentOptions = { keepAlive: keepAlive === 'on', maxSockets: 50 };
  const tlsOptions = tlsMaxVersion ? { maxVersion: tlsMaxVersion } : {};
  const options: NodeHttpHandlerOptions = {
    // Local engines may be plain http; AWS is https.
    httpAgent: counting(new http.Agent(agentOptions), counter),
    httpsAgent: counting(new https.Agent({ ...agentOptions, ...tlsOptions }), counter),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    requestTimeout: requestTimeoutMs,
    // Without this the handler only logs a warning when requestTimeout passes, and keeps waiting.
    throwOnRequestTimeout: true,
  };
  return {
    socketsOpened: () => counter.opened,
    requestsSent: () => counter.requests,
    options,
    handler: new NodeHttpHandler(options),
  };
}

/** The HTTP layer a deployed function builds from its env: KEEP_ALIVE and LAB_TLS_MAX_VERSION. */
export function labHttpFromEnv(env: NodeJS.ProcessEnv = process.env): LabHttp {
  return createLabHttp(readKeepAlive(env), REQUEST_TIMEOUT_MS, readTlsMaxVersion(env));
}
