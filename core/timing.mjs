// @ts-check
/**
 * The timing block every lab response carries, and its one validator. Plain ESM with
 * JSDoc so that the handlers (bundled by esbuild), the TypeScript tools and the Artillery
 * processor (loaded by Artillery without a TypeScript loader) all import the same code.
 * Types: timing.d.mts.
 *
 *   dbMs           database time of this invocation, ms, 3 decimals (performance.now)
 *   newConnection  true when the database call opened a connection
 *   dbRequests     what the database call sent: HTTP requests (DynamoDB 1, QLDB one per
 *                  SendCommand), Redis commands (AUTH and QUIT included), PostgreSQL frontend
 *                  messages for DSQL (SSLRequest, startup, token, and Parse/Bind/Describe/Execute/Sync
 *                  per statement)
 *   dbRoundTrips   the times the call sent and then waited for the database's answer: one per
 *                  HTTP request and per Redis command (nothing is pipelined), one per flight of
 *                  PostgreSQL messages (a statement's five messages are one); TCP and TLS
 *                  handshakes are not counted (newConnection marks the calls that paid them)
 *   dbCommands     optional: the protocol commands the call sent, by name, where a protocol has
 *                  several (QLDB's SendCommand carries StartSession, StartTransaction,
 *                  ExecuteStatement, FetchPage, CommitTransaction, AbortTransaction, EndSession);
 *                  counted as the driver sends them, SDK retries of one command not added
 *   coldStart      true for the first invocation of this execution environment
 *   initType       AWS_LAMBDA_INITIALIZATION_TYPE: on-demand | provisioned-concurrency | snap-start
 *   environment    the execution environment's id: its log stream (AWS_LAMBDA_LOG_STREAM_NAME),
 *                  one per environment in Lambda and on the local host
 *   concurrency    invocations in flight in the function's runtime when this one started, itself
 *                  included: always 1 on standard Lambda (one invocation per environment at a
 *                  time), up to PerExecutionEnvironmentMaxConcurrency on Managed Instances, where
 *                  Node's runtime spreads them over worker threads and each counts its own
 *
 * dbRoundTrips, environment and concurrency are absent from timings written before they existed.
 *   billed         optional: [{ key, quantity, basis }] the call's billed units (bill-meter.ts)
 */

/**
 * How a billed-unit count was obtained, strongest first: returned by the service, computed by its
 * rules, or modeled. The one order every sum of units and every schema reads.
 * @type {readonly ['measured', 'computed', 'modeled']}
 */
export const UNIT_BASES = ['measured', 'computed', 'modeled'];

/**
 * The weaker of two bases: a sum is only as good as its weakest part.
 * @param {import('./timing.d.mts').UnitBasis} a
 * @param {import('./timing.d.mts').UnitBasis} b
 * @returns {import('./timing.d.mts').UnitBasis}
 */
export function weakerBasis(a, b) {
  return UNIT_BASES[Math.max(UNIT_BASES.indexOf(a), UNIT_BASES.indexOf(b))];
}

/**
 * @param {unknown} v
 * @returns {v is import('./timing.d.mts').BilledQuantity}
 */
export function isBilledQuantity(v) {
  return (
    isRecord(v) &&
    typeof v.key === 'string' &&
    v.key !== '' &&
    typeof v.quantity === 'number' &&
    Number.isFinite(v.quantity) &&
    v.quantity >= 0 &&
    typeof v.basis === 'string' &&
    UNIT_BASES.includes(/** @type {import('./timing.d.mts').UnitBasis} */ (v.basis))
  );
}

/**
 * A count per command name: whole numbers >= 0 under non-empty names.
 * @param {unknown} v
 * @returns {v is Readonly<Record<string, number>>}
 */
export function isCommandCounts(v) {
  return (
    isRecord(v) &&
    Object.entries(v).every(
      ([name, n]) => name !== '' && typeof n === 'number' && Number.isInteger(n) && n >= 0,
    )
  );
}

/** Letters, digits, '-' and '_': safe in a URL path segment without encoding. */
export const GOV_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
export function isRecord(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * @param {unknown} v
 * @returns {v is import('./timing.d.mts').Timing}
 */
export function isTiming(v) {
  return (
    isRecord(v) &&
    typeof v.dbMs === 'number' &&
    Number.isFinite(v.dbMs) &&
    v.dbMs >= 0 &&
    typeof v.newConnection === 'boolean' &&
    typeof v.dbRequests === 'number' &&
    Number.isInteger(v.dbRequests) &&
    v.dbRequests >= 0 &&
    (v.dbRoundTrips === undefined ||
      (typeof v.dbRoundTrips === 'number' && Number.isInteger(v.dbRoundTrips) && v.dbRoundTrips >= 0)) &&
    (v.dbCommands === undefined || isCommandCounts(v.dbCommands)) &&
    typeof v.coldStart === 'boolean' &&
    typeof v.initType === 'string' &&
    (v.environment === undefined || typeof v.environment === 'string') &&
    (v.concurrency === undefined ||
      (typeof v.concurrency === 'number' && Number.isInteger(v.concurrency) && v.concurrency >= 1)) &&
    (v.billed === undefined || (Array.isArray(v.billed) && v.billed.every(isBilledQuantity)))
  );
}

/**
 * @param {unknown} v
 * @returns {v is import('./timing.d.mts').TimingLine}
 */
export function isTimingLine(v) {
  return (
    isRecord(v) &&
    typeof v.at === 'number' &&
    typeof v.target === 'string' &&
    typeof v.variant === 'string' &&
    typeof v.phase === 'string' &&
    (v.memoryMb === undefined || typeof v.memoryMb === 'number') &&
    typeof v.status === 'number' &&
    (v.clientMs === null || typeof v.clientMs === 'number') &&
    (v.govId === null || typeof v.govId === 'string') &&
    (v.timing === null || isTiming(v.timing))
  );
}

/**
 * The timing block of a response body when it has the documented shape, else null.
 * @param {string} body
 * @returns {import('./timing.d.mts').Timing | null}
 */
export function timingOfBody(body) {
  let parsed;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  return isRecord(parsed) && isTiming(parsed.timing) ? parsed.timing : null;
}

/**
 * Whether a response's database figures belong in the database statistics: a 400 failed
 * validation before any database call (its dbMs, 0, is not database time, and it opened no
 * connection); a response without a timing block has none; and a response whose call neither
 * opened a connection nor sent a request never reached the database either (a redis function
 * whose secret could not be read answers 503 before it has a database to call). Timings
 * written before dbRequests existed keep the status rule. summary.json, report.json and the
 * handlers' EMF metrics all filter with this one function.
 * @param {number} status
 * @param {{ readonly dbMs?: number, readonly newConnection?: boolean, readonly dbRequests?: number } | null | undefined} timing
 * @returns {boolean}
 */
export function reachedDatabase(status, timing) {
  if (status === 400 || typeof timing?.dbMs !== 'number') return false;
  return !(timing.dbRequests === 0 && timing.newConnection === false);
}
