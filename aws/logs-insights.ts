/**
 * CloudWatch Logs Insights: run a query to completion (StartQuery, then GetQueryResults
 * until a final status, then every page by nextToken), and the lab's queries over the
 * functions' log groups.
 */

import { setTimeout as delay } from 'node:timers/promises';
import {
  type CloudWatchLogsClient,
  GetQueryResultsCommand,
  type GetQueryResultsCommandOutput,
  type QueryStatus,
  type ResultField,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { LabError } from '../core/errors';

/**
 * The lab's functions log to log groups CDK names, not `/aws/lambda/<function>`, and
 * Insights' automatic Lambda fields (@type, @duration, @initDuration) may not be discovered
 * there. So the queries match the REPORT message itself and parse its fields out of
 * @message. Each pattern starts at the tab before the field name: `\tDuration:` is not the
 * tail of `Billed Duration:`, `Restore Duration:` or `Billed Restore Duration:` (SnapStart).
 */
const REPORT_FILTER = 'filter @message like /^REPORT RequestId/';
const PARSE_DURATION = 'parse @message /\\tDuration: (?<duration>[0-9.]+) ms/';
const PARSE_INIT = 'parse @message /\\tInit Duration: (?<initDuration>[0-9.]+) ms/';

/** Duration statistics per function, as the article shows them (its `@duration` parsed from @message). */
export const REPORT_STATS_QUERY = `${REPORT_FILTER} | ${PARSE_DURATION} | stats avg(duration), max(duration), min(duration), pct(duration, 95) by @log`;

/** The same split into cold (with Init Duration) and warm invocations. */
export const COLD_WARM_QUERY =
  `${REPORT_FILTER} | ${PARSE_DURATION} | ${PARSE_INIT} | fields ispresent(initDuration) as coldStart` +
  ' | stats count(*), avg(duration), pct(duration, 50), pct(duration, 95), pct(duration, 99),' +
  ' max(duration), avg(initDuration), max(initDuration) by @log, coldStart';

/**
 * The most rows one query returns: 100,000, read from GetQueryResults in pages of up to
 * 10,000 by nextToken (the figures of the SDK's GetQueryResults and StartQuery docs).
 */
export const MAX_INSIGHTS_ROWS = 100_000;

/** Every REPORT line, raw, for the report's own parser. StartQuery's `limit` sets the row cap. */
export const REPORT_EXPORT_QUERY = `${REPORT_FILTER} | fields @timestamp, @log, @message | sort @timestamp asc`;

/**
 * The handlers' timing lines. Insights discovers JSON fields only when the whole message
 * is JSON; a console.log line is prefixed with timestamp, request id and level, so the
 * message is matched as text and its JSON parsed here (parseTimingMessage).
 */
export const TIMINGS_QUERY =
  'filter @message like /"lab":"timing"/ | fields @timestamp, @log, @message | sort @timestamp asc';

export interface InsightsProgress {
  readonly status: QueryStatus | string;
  readonly recordsMatched: number;
  readonly recordsScanned: number;
  readonly bytesScanned: number;
  readonly elapsedMs: number;
}

export interface InsightsOptions {
  readonly logGroups: readonly string[];
  /** Window start, epoch ms. */
  readonly sinceMs: number;
  /** Window end, epoch ms. @default now */
  readonly untilMs?: number;
  readonly query: string;
  readonly onProgress?: (progress: InsightsProgress) => void;
  /** @default 120000 */
  readonly timeoutMs?: number;
  /** @default 1000 */
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
  /** Injected in tests. */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class InsightsError extends LabError {
  constructor(
    message: string,
    readonly queryId?: string,
    readonly status?: string,
  ) {
    super(message, 'InsightsError');
  }
}

/** StartQuery accepts at most 50 log group names. */
export const MAX_LOG_GROUPS = 50;

const sleepFor = async (ms: number, signal?: AbortSignal) => {
  await delay(ms, undefined, signal ? { signal } : undefined);
};

export function rowToRecord(row: readonly ResultField[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const f of row) {
    // @ptr is an opaque pointer for GetLogRecord, not data.
    if (f.field && f.field !== '@ptr' && f.value !== undefined) record[f.field] = f.value;
  }
  return record;
}

async function stopQuietly(logs: CloudWatchLogsClient, queryId: string): Promise<void> {
  try {
    await logs.send(new StopQueryCommand({ queryId }));
  } catch {
    // The query may have finished meanwhile; nothing more to stop.
  }
}

/** The first page's rows and every further page's, by nextToken, up to MAX_INSIGHTS_ROWS. */
async function readPages(
  logs: CloudWatchLogsClient,
  queryId: string,
  first: GetQueryResultsCommandOutput,
  signal?: AbortSignal,
): Promise<Record<string, string>[]> {
  const rows = (first.results ?? []).map(rowToRecord);
  const seen = new Set<string>();
  let token = first.nextToken;
  // A token seen before would loop forever; the cap ends a query that keeps paging.
  while (token && !seen.has(token) && rows.length < MAX_INSIGHTS_ROWS) {
    if (signal?.aborted) throw new InsightsError(`query ${queryId} interrupted`, queryId);
    seen.add(token);
    const page = await logs.send(new GetQueryResultsCommand({ queryId, nextToken: token }));
    for (const r of page.results ?? []) rows.push(rowToRecord(r));
    token = page.nextToken;
  }
  return rows.slice(0, MAX_INSIGHTS_ROWS);
}

/** Runs one query to completion and returns all its rows; throws InsightsError on any other end. */
export async function runInsights(
  logs: CloudWatchLogsClient,
  options: InsightsOptions,
): Promise<Record<string, string>[]> {
  const { logGroups, query } = options;
  if (logGroups.length === 0) throw new InsightsError('no log group to query');
  if (logGroups.length > MAX_LOG_GROUPS) {
    throw new InsightsError(
      `Logs Insights queries at most ${MAX_LOG_GROUPS} log groups, got ${logGroups.length}`,
    );
  }
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const pollMs = options.pollMs ?? 1000;
  const untilMs = options.untilMs ?? now();
  if (!(options.sinceMs < untilMs))
    throw new InsightsError('the time window is empty: sinceMs must precede untilMs');

  const started = now();
  const { queryId } = await logs.send(
    new StartQueryCommand({
      logGroupNames: [...logGroups],
      // Insights takes epoch seconds; widen to whole seconds so no edge event is lost.
      startTime: Math.floor(options.sinceMs / 1000),
      endTime: Math.ceil(untilMs / 1000),
      queryString: query,
      // Without it a query stops at 10,000 rows; 100,000 is the most Insights gives one query.
      limit: MAX_INSIGHTS_ROWS,
    }),
  );
  if (!queryId) throw new InsightsError('StartQuery returned no queryId');

  for (;;) {
    if (options.signal?.aborted) {
      await stopQuietly(logs, queryId);
      throw new InsightsError(`query ${queryId} interrupted`, queryId);
    }
    const out = await logs.send(new GetQueryResultsCommand({ queryId }));
    const status = out.status ?? 'Unknown';
    const elapsedMs = now() - started;
    options.onProgress?.({
      status,
      recordsMatched: out.statistics?.recordsMatched ?? 0,
      recordsScanned: out.statistics?.recordsScanned ?? 0,
      bytesScanned: out.statistics?.bytesScanned ?? 0,
      elapsedMs,
    });
    if (status === 'Complete') return readPages(logs, queryId, out, options.signal);
    if (status === 'Failed' || status === 'Cancelled' || status === 'Timeout' || status === 'Unknown') {
      const hint =
        status === 'Timeout' ? ' (Insights stops queries after 60 minutes; narrow the window)' : '';
      throw new InsightsError(`Logs Insights query ${queryId} ended ${status}${hint}`, queryId, status);
    }
    if (elapsedMs >= timeoutMs) {
      await stopQuietly(logs, queryId);
      throw new InsightsError(
        `Logs Insights query ${queryId} still ${status} after ${Math.round(elapsedMs / 1000)} s; stopped it`,
        queryId,
        status,
      );
    }
    try {
      await sleep(Math.min(pollMs, Math.max(0, timeoutMs - elapsedMs)), options.signal);
    } catch {
      // Aborted while waiting: the loop's next turn stops the query.
    }
  }
}

/** One handler timing line, as the handlers write it (plain JSON or Powertools EMF). */
export interface TimingRecord {
  readonly logGroup: string;
  readonly timestamp?: string;
  readonly fn: string;
  readonly status: number;
  /** Absent when the request never reached the database (400). */
  readonly dbMs?: number;
  /** Requests or commands the call sent; absent with dbMs, and in lines written before it existed. */
  readonly dbRequests?: number;
  readonly newConnection: boolean;
  readonly coldStart: boolean;
  readonly initType: string;
}

/** `123456789012:/aws/lambda/x` (Insights' @log) -> `/aws/lambda/x`. */
export function logGroupOf(atLog: string | undefined): string {
  if (!atLog) return '';
  const i = atLog.indexOf(':');
  return i >= 0 && /^\d+$/.test(atLog.slice(0, i)) ? atLog.slice(i + 1) : atLog;
}

/** A flag written as a boolean (plain JSON) or as a 0/1 metric (EMF). */
function flag(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  return undefined;
}

/**
 * Reads the timing JSON out of one message: after a console.log prefix
 * (`<ts>\t<requestId>\tINFO\t{...}`) or alone. The EMF form names the function `function`
 * and carries status as a string and flags as 0/1; both forms give the same record.
 * Returns undefined for anything that is not a timing line.
 */
export function parseTimingMessage(
  message: string,
  meta: { logGroup?: string; timestamp?: string } = {},
): TimingRecord | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(message.slice(start));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (o.lab !== 'timing') return undefined;
  const fn = typeof o.fn === 'string' ? o.fn : typeof o.function === 'string' ? o.function : undefined;
  const status = typeof o.status === 'number' ? o.status : Number(o.status);
  const newConnection = flag(o.newConnection);
  const coldStart = flag(o.coldStart);
  if (
    fn === undefined ||
    !Number.isInteger(status) ||
    newConnection === undefined ||
    coldStart === undefined
  ) {
    return undefined;
  }
  return {
    logGroup: meta.logGroup ?? '',
    ...(meta.timestamp ? { timestamp: meta.timestamp } : {}),
    fn,
    status,
    ...(typeof o.dbMs === 'number' ? { dbMs: o.dbMs } : {}),
    ...(typeof o.dbRequests === 'number' ? { dbRequests: o.dbRequests } : {}),
    newConnection,
    coldStart,
    initType: typeof o.initType === 'string' ? o.initType : 'unknown',
  };
}

export interface LabLogsOptions extends Omit<InsightsOptions, 'query' | 'onProgress'> {
  readonly onProgress?: (query: 'reports' | 'timings', progress: InsightsProgress) => void;
}

export interface LabLogs {
  /** Raw REPORT messages, each as `[<log group>] REPORT RequestId: ...` (the report parser's source prefix). */
  readonly reportLines: string[];
  readonly timings: TimingRecord[];
  /** Timing-like messages that could not be read. */
  readonly unreadableTimings: number;
  /** True when a query hit the MAX_INSIGHTS_ROWS cap (100,000): narrow the window to get every line. */
  readonly truncated: boolean;
}

/** The REPORT lines and timing lines of the given log groups in a time window (two queries, run together). */
export async function fetchLabLogs(logs: CloudWatchLogsClient, options: LabLogsOptions): Promise<LabLogs> {
  const { onProgress, ...common } = options;
  const [reports, timingRows] = await Promise.all([
    runInsights(logs, {
      ...common,
      query: REPORT_EXPORT_QUERY,
      onProgress: onProgress && ((p) => onProgress('reports', p)),
    }),
    runInsights(logs, {
      ...common,
      query: TIMINGS_QUERY,
      onProgress: onProgress && ((p) => onProgress('timings', p)),
    }),
  ]);
  const reportLines = reports
    .filter((r) => r['@message'])
    .map((r) => `[${logGroupOf(r['@log'])}] ${r['@message'].replace(/\s+$/, '')}`);
  const timings: TimingRecord[] = [];
  let unreadableTimings = 0;
  for (const row of timingRows) {
    const t = parseTimingMessage(row['@message'] ?? '', {
      logGroup: logGroupOf(row['@log']),
      timestamp: row['@timestamp'],
    });
    if (t) timings.push(t);
    else unreadableTimings += 1;
  }
  return {
    reportLines,
    timings,
    unreadableTimings,
    truncated: reports.length >= MAX_INSIGHTS_ROWS || timingRows.length >= MAX_INSIGHTS_ROWS,
  };
}
