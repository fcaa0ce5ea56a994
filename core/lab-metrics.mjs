// @ts-check
/**
 * The timing block as Artillery custom metrics: what the Artillery processor emits for each
 * response, so that everything summary.json needs travels inside Artillery's own report, which
 * Artillery merges across its workers (local threads, Lambda or Fargate tasks). The summary
 * rebuilt from a report alone (runs/artillery-metrics.ts) reads these names back.
 *
 * Counters (summed over workers):
 *   lab.responses, lab.timed, lab.timing_missing      every response; with / without a timing block
 *   lab.cold_starts, lab.init_type.<type>              over timed responses
 *   lab.db_calls, lab.new_connections                  over calls that reached the database (reachedDatabase)
 *   lab.db_commands.<breakdown>                        those calls per distinct command breakdown
 *                                                      (<breakdown>: Name=n,Name=n in protocol order)
 *   lab.environment.<id>                               per execution environment that answered
 *   lab.warm.db_calls, lab.warm.new_connections        database calls of warm environments (afterGap)
 *   lab.load.open.<rate> | lab.load.closed             one per virtual user: the load's shape
 * Histograms (merged as sketches, 1% relative accuracy; Artillery rounds summaries to 0.1, so
 * times go out in microseconds):
 *   lab.db_us, lab.db_requests, lab.db_round_trips     per database call
 *   lab.warm.db_us.new_connection, lab.warm.db_us.reused
 *   lab.in_flight                                      at each response, the most responses of this
 *                                                      worker in flight at once so far (its max is the
 *                                                      worker's exact peak; see InFlight)
 */
import { reachedDatabase } from './timing.mjs';

export const METRIC = Object.freeze({
  responses: 'lab.responses',
  timed: 'lab.timed',
  timingMissing: 'lab.timing_missing',
  coldStarts: 'lab.cold_starts',
  initTypePrefix: 'lab.init_type.',
  dbCalls: 'lab.db_calls',
  newConnections: 'lab.new_connections',
  dbCommandsPrefix: 'lab.db_commands.',
  environmentPrefix: 'lab.environment.',
  warmDbCalls: 'lab.warm.db_calls',
  warmNewConnections: 'lab.warm.new_connections',
  loadOpenPrefix: 'lab.load.open.',
  loadClosed: 'lab.load.closed',
  dbUs: 'lab.db_us',
  dbRequests: 'lab.db_requests',
  dbRoundTrips: 'lab.db_round_trips',
  warmNewConnectionDbUs: 'lab.warm.db_us.new_connection',
  warmReusedDbUs: 'lab.warm.db_us.reused',
  inFlight: 'lab.in_flight',
});

/** The order of QLDB's commands in a transaction (runs/db-commands.ts uses the same). */
const COMMAND_ORDER = [
  'StartSession',
  'StartTransaction',
  'ExecuteStatement',
  'FetchPage',
  'CommitTransaction',
  'AbortTransaction',
  'EndSession',
];

/** @param {string} name */
function commandRank(name) {
  const i = COMMAND_ORDER.indexOf(name);
  return i === -1 ? COMMAND_ORDER.length : i;
}

/**
 * `StartTransaction=1,ExecuteStatement=1,CommitTransaction=1`: one counter name per breakdown.
 * @param {Readonly<Record<string, number>>} commands
 */
export function breakdownKey(commands) {
  return Object.keys(commands)
    .filter((n) => commands[n] > 0)
    .sort((a, b) => commandRank(a) - commandRank(b) || a.localeCompare(b))
    .map((n) => `${n}=${commands[n]}`)
    .join(',');
}

/**
 * The inverse of breakdownKey; undefined when the name does not parse.
 * @param {string} key
 * @returns {Record<string, number> | undefined}
 */
export function parseBreakdownKey(key) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const part of key.split(',')) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(\d+)$/.exec(part);
    if (!m) return undefined;
    out[m[1]] = Number(m[2]);
  }
  return out;
}

const US_PER_MS = 1000;

/**
 * The metrics of one response, as [type, name, value] for events.emit.
 * @param {number} status
 * @param {import('./timing.d.mts').Timing | null} timing
 * @returns {['counter' | 'histogram', string, number][]}
 */
export function responseMetrics(status, timing) {
  /** @type {['counter' | 'histogram', string, number][]} */
  const out = [['counter', METRIC.responses, 1]];
  if (!timing) {
    out.push(['counter', METRIC.timingMissing, 1]);
    return out;
  }
  out.push(['counter', METRIC.timed, 1]);
  out.push(['counter', METRIC.coldStarts, timing.coldStart ? 1 : 0]);
  out.push(['counter', `${METRIC.initTypePrefix}${timing.initType}`, 1]);
  if (timing.environment !== undefined)
    out.push(['counter', `${METRIC.environmentPrefix}${timing.environment}`, 1]);
  if (!reachedDatabase(status, timing)) return out;
  const us = timing.dbMs * US_PER_MS;
  out.push(['counter', METRIC.dbCalls, 1]);
  out.push(['counter', METRIC.newConnections, timing.newConnection ? 1 : 0]);
  out.push(['histogram', METRIC.dbUs, us]);
  out.push(['histogram', METRIC.dbRequests, timing.dbRequests]);
  if (timing.dbRoundTrips !== undefined) out.push(['histogram', METRIC.dbRoundTrips, timing.dbRoundTrips]);
  if (timing.dbCommands) {
    const key = breakdownKey(timing.dbCommands);
    if (key !== '') out.push(['counter', `${METRIC.dbCommandsPrefix}${key}`, 1]);
  }
  if (!timing.coldStart) {
    out.push(['counter', METRIC.warmDbCalls, 1]);
    out.push(['counter', METRIC.warmNewConnections, timing.newConnection ? 1 : 0]);
    out.push(['histogram', timing.newConnection ? METRIC.warmNewConnectionDbUs : METRIC.warmReusedDbUs, us]);
  }
  return out;
}

/** Responses end within this of their start (the scenarios' http.timeout is 30 s). */
const HORIZON_MS = 60_000;

/**
 * The most responses in flight at once, as runs/results.ts maxInFlight computes it from
 * timings.jsonl (each response spans [at - clientMs, at]), kept incrementally for one worker.
 * add() returns the highest overlap over the new response's span among the responses known so
 * far. For the moment of the peak, the last response added that spans it sees every other one,
 * so the largest value add() ever returns is the exact peak; no value exceeds it.
 */
export class InFlight {
  constructor() {
    /** @type {[number, number][]} spans [start, end], in the order added (ends nearly sorted) */
    this.spans = [];
  }

  /** @param {number} at @param {number} clientMs */
  add(at, clientMs) {
    const start = at - clientMs;
    // Spans that ended long before this one started can overlap nothing again.
    while (this.spans.length > 0 && this.spans[0][1] < at - HORIZON_MS) this.spans.shift();
    /** @type {[number, number][]} */
    const edges = [
      [start, 1],
      [at, -1],
    ];
    // Ends are added in time order: walk back until a span ended before this one started.
    for (let i = this.spans.length - 1; i >= 0; i--) {
      const [s, e] = this.spans[i];
      if (e <= start) break;
      if (s >= at) continue;
      // Clipped to the new span: only overlaps within it are new.
      edges.push([Math.max(s, start), 1], [Math.min(e, at), -1]);
    }
    this.spans.push([start, at]);
    // Ends before starts at the same instant: back-to-back requests are not concurrent.
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let max = 0;
    for (const [, d] of edges) {
      now += d;
      if (now > max) max = now;
    }
    return max;
  }
}
