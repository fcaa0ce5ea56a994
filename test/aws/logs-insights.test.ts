import {
  CloudWatchLogsClient,
  GetQueryResultsCommand,
  type GetQueryResultsCommandInput,
  type ResultField,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import 'aws-sdk-client-mock-vitest/extend';
import {
  COLD_WARM_QUERY,
  fetchLabLogs,
  InsightsError,
  type InsightsProgress,
  logGroupOf,
  MAX_INSIGHTS_ROWS,
  parseTimingMessage,
  REPORT_EXPORT_QUERY,
  REPORT_STATS_QUERY,
  runInsights,
  TIMINGS_QUERY,
} from '../../aws/logs-insights';
import { parseLambdaLog } from '../../runs/lambda-log-parser';

const logsMock = mockClient(CloudWatchLogsClient);
// Stubs the client class for this worker process: undone when the file ends.
afterAll(() => logsMock.restore());
const logs = new CloudWatchLogsClient({ region: 'eu-west-1' });

const GROUP = '/aws/lambda/LatencyLab-Api-DynamodbGet-AAA';
// Insights shows @log as `<account>:<group>`; the account is obviously fake.
const AT_LOG = `111111111111:${GROUP}`;

const row = (fields: Record<string, string>): ResultField[] =>
  [...Object.entries(fields), ['@ptr', 'opaque']].map(([field, value]) => ({ field, value }));

/** A clock that moves only when the poll loop sleeps, so timeouts are exact and instant. */
function fakeTime(start = 1_700_000_000_000) {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

const BASE = { logGroups: [GROUP], sinceMs: 1_700_000_000_000 - 3_600_500, pollMs: 1000 };

describe('runInsights', () => {
  beforeEach(() => {
    logsMock.reset();
    logsMock.on(StartQueryCommand).resolves({ queryId: 'q-1' });
  });

  it('polls until Complete and returns rows as records, reporting progress', async () => {
    logsMock
      .on(GetQueryResultsCommand)
      .resolvesOnce({ status: 'Scheduled' })
      .resolvesOnce({
        status: 'Running',
        statistics: { recordsMatched: 2, recordsScanned: 50, bytesScanned: 900 },
      })
      .resolves({
        status: 'Complete',
        statistics: { recordsMatched: 2, recordsScanned: 120, bytesScanned: 2000 },
        results: [
          row({ '@log': AT_LOG, 'avg(@duration)': '12.5' }),
          row({ '@log': AT_LOG, 'avg(@duration)': '8' }),
        ],
      });
    const progress: InsightsProgress[] = [];
    const time = fakeTime();
    const rows = await runInsights(logs, {
      ...BASE,
      query: REPORT_STATS_QUERY,
      onProgress: (p) => progress.push(p),
      ...time,
    });

    expect(rows).toEqual([
      { '@log': AT_LOG, 'avg(@duration)': '12.5' },
      { '@log': AT_LOG, 'avg(@duration)': '8' },
    ]);
    expect(progress.map((p) => p.status)).toEqual(['Scheduled', 'Running', 'Complete']);
    expect(progress[2]).toMatchObject({
      recordsMatched: 2,
      recordsScanned: 120,
      bytesScanned: 2000,
      elapsedMs: 2000,
    });
    expect(logsMock).toHaveReceivedCommandTimes(GetQueryResultsCommand, 3);
    expect(logsMock).toHaveReceivedCommandWith(StartQueryCommand, {
      logGroupNames: [GROUP],
      queryString: REPORT_STATS_QUERY,
      // Whole seconds, widened outwards.
      startTime: Math.floor(BASE.sinceMs / 1000),
      endTime: 1_700_000_000,
    });
    expect(logsMock).not.toHaveReceivedCommand(StopQueryCommand);
  });

  it.each(['Failed', 'Cancelled', 'Timeout'] as const)(
    'fails clearly when the query ends %s',
    async (status) => {
      logsMock.on(GetQueryResultsCommand).resolvesOnce({ status: 'Running' }).resolves({ status });
      const error = await runInsights(logs, { ...BASE, query: COLD_WARM_QUERY, ...fakeTime() }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InsightsError);
      expect((error as InsightsError).message).toContain(`q-1 ended ${status}`);
      expect((error as InsightsError).status).toBe(status);
    },
  );

  it('stops the query and fails when it runs past the timeout', async () => {
    logsMock.on(GetQueryResultsCommand).resolves({ status: 'Running' });
    logsMock.on(StopQueryCommand).resolves({ success: true });
    const time = fakeTime();
    await expect(
      runInsights(logs, { ...BASE, query: COLD_WARM_QUERY, timeoutMs: 5000, ...time }),
    ).rejects.toThrow(/still Running after 5 s; stopped it/);
    expect(logsMock).toHaveReceivedCommandWith(StopQueryCommand, { queryId: 'q-1' });
    expect(logsMock).toHaveReceivedCommandTimes(GetQueryResultsCommand, 6);
  });

  it('stops the query when aborted', async () => {
    logsMock.on(GetQueryResultsCommand).resolves({ status: 'Running' });
    const controller = new AbortController();
    const sleep = async () => controller.abort();
    await expect(
      runInsights(logs, { ...BASE, query: COLD_WARM_QUERY, signal: controller.signal, sleep }),
    ).rejects.toThrow(/interrupted/);
    expect(logsMock).toHaveReceivedCommandWith(StopQueryCommand, { queryId: 'q-1' });
  });

  it('refuses an empty window or too many log groups before calling AWS', async () => {
    await expect(runInsights(logs, { ...BASE, query: 'x', untilMs: BASE.sinceMs })).rejects.toThrow(/empty/);
    const many = Array.from({ length: 51 }, (_, i) => `/g/${i}`);
    await expect(runInsights(logs, { ...BASE, logGroups: many, query: 'x' })).rejects.toThrow(/at most 50/);
    expect(logsMock).not.toHaveReceivedAnyCommand();
  });
});

describe('paging and the row cap', () => {
  beforeEach(() => {
    logsMock.reset();
    logsMock.on(StartQueryCommand).resolves({ queryId: 'q-1' });
  });

  it('asks for the 100,000-row cap and reads every page by nextToken', async () => {
    const pages: Record<string, { results: ResultField[][]; nextToken?: string }> = {
      first: { results: [row({ n: '1' }), row({ n: '2' })], nextToken: 't2' },
      t2: { results: [row({ n: '3' }), row({ n: '4' })], nextToken: 't3' },
      t3: { results: [row({ n: '5' })] },
    };
    logsMock.on(GetQueryResultsCommand).callsFake((input: GetQueryResultsCommandInput) => ({
      status: 'Complete',
      ...pages[input.nextToken ?? 'first'],
    }));
    const rows = await runInsights(logs, { ...BASE, query: 'q', ...fakeTime() });
    expect(rows.map((r) => r.n)).toEqual(['1', '2', '3', '4', '5']);
    expect(MAX_INSIGHTS_ROWS).toBe(100_000);
    expect(logsMock).toHaveReceivedCommandWith(StartQueryCommand, { limit: 100_000 });
    expect(logsMock).toHaveReceivedCommandTimes(GetQueryResultsCommand, 3);
    expect(logsMock).toHaveReceivedNthCommandWith(GetQueryResultsCommand, 2, {
      queryId: 'q-1',
      nextToken: 't2',
    });
    expect(logsMock).toHaveReceivedNthCommandWith(GetQueryResultsCommand, 3, {
      queryId: 'q-1',
      nextToken: 't3',
    });
  });

  it('stops at the cap and says so when the REPORT lines fill it', async () => {
    const report = (i: number) =>
      row({
        '@log': AT_LOG,
        '@message': `REPORT RequestId: 0a1b2c3d-0000-4000-8000-${String(i).padStart(12, '0')}\tDuration: 1.00 ms\tBilled Duration: 1 ms\tMemory Size: 128 MB\tMax Memory Used: 60 MB\t`,
      });
    // 10,000 rows per page (the API's page size), a next page always offered
    const page = Array.from({ length: 10_000 }, (_, i) => report(i));
    logsMock.on(StartQueryCommand, { queryString: REPORT_EXPORT_QUERY }).resolves({ queryId: 'reports' });
    logsMock.on(StartQueryCommand, { queryString: TIMINGS_QUERY }).resolves({ queryId: 'timings' });
    logsMock
      .on(GetQueryResultsCommand)
      .callsFake((input: GetQueryResultsCommandInput) =>
        input.queryId === 'timings'
          ? { status: 'Complete', results: [] }
          : { status: 'Complete', results: page, nextToken: `after-${input.nextToken ?? '0'}` },
      );
    const result = await fetchLabLogs(logs, {
      logGroups: [GROUP],
      sinceMs: Date.now() - 60_000,
      sleep: async () => {},
    });
    expect(result.reportLines).toHaveLength(100_000);
    expect(result.truncated).toBe(true);
    // 1 + 9 pages for the reports, 1 for the timings: no page past the cap
    expect(logsMock).toHaveReceivedCommandTimes(GetQueryResultsCommand, 11);
  });

  it('parses Duration and Init Duration from @message, never Billed or Restore Duration', () => {
    const patterns = (query: string) =>
      [...query.matchAll(/parse @message \/(.+?)\/ \|/g)].map((m) => new RegExp(m[1]));
    const [duration, init] = patterns(COLD_WARM_QUERY);
    expect(patterns(REPORT_STATS_QUERY)[0].source).toBe(duration.source);
    const snapStart =
      'REPORT RequestId: 5b1e0c3a-7d4f-4e2a-9c61-0a8b2f3d4e5c\tDuration: 41.27 ms\tBilled Duration: 178 ms\tMemory Size: 512 MB\tMax Memory Used: 95 MB\tRestore Duration: 312.45 ms\tBilled Restore Duration: 136 ms\t';
    expect(duration.exec(snapStart)?.groups?.duration).toBe('41.27');
    expect(init.exec(snapStart)).toBeNull();
    const cold =
      'REPORT RequestId: 4fd9781e-4d93-4a90-87b4-e637afd92e9f\tDuration: 1220.41 ms\tBilled Duration: 1221 ms\tMemory Size: 256 MB\tMax Memory Used: 86 MB\tInit Duration: 2395.82 ms\t';
    expect(duration.exec(cold)?.groups?.duration).toBe('1220.41');
    expect(init.exec(cold)?.groups?.initDuration).toBe('2395.82');
    for (const q of [REPORT_STATS_QUERY, COLD_WARM_QUERY, REPORT_EXPORT_QUERY]) {
      expect(q).toMatch(/^filter @message like \/\^REPORT RequestId\/ \|/);
      expect(q).not.toContain('@type');
      expect(q).not.toContain('@duration');
    }
  });
});

describe('timing lines', () => {
  const plain =
    '{"lab":"timing","fn":"dynamodb-get","status":200,"dbMs":9.8,"newConnection":false,"coldStart":false,"initType":"on-demand"}';
  const consoleLine = `2026-01-02T03:04:05.678Z\tc0ffee00-1111-2222-3333-444455556666\tINFO\t${plain}\n`;
  const emf = JSON.stringify({
    _aws: {
      Timestamp: 1,
      CloudWatchMetrics: [{ Namespace: 'LatencyLab', Dimensions: [['service', 'function']], Metrics: [] }],
    },
    service: 'latency-lab',
    function: 'dynamodb-create',
    dbMs: 15.25,
    dbRequests: 2,
    newConnection: 1,
    coldStart: 1,
    lab: 'timing',
    status: '201',
    initType: 'on-demand',
  });

  it('reads a console.log line (prefixed) and a plain JSON line alike', () => {
    const expected = {
      logGroup: GROUP,
      fn: 'dynamodb-get',
      status: 200,
      dbMs: 9.8,
      newConnection: false,
      coldStart: false,
      initType: 'on-demand',
    };
    expect(parseTimingMessage(consoleLine, { logGroup: GROUP })).toEqual(expected);
    expect(parseTimingMessage(plain, { logGroup: GROUP })).toEqual(expected);
  });

  it('reads the Powertools EMF form (function, string status, 0/1 flags)', () => {
    expect(parseTimingMessage(emf, { logGroup: GROUP, timestamp: '2026-01-02 03:04:05.678' })).toEqual({
      logGroup: GROUP,
      timestamp: '2026-01-02 03:04:05.678',
      fn: 'dynamodb-create',
      status: 201,
      dbMs: 15.25,
      dbRequests: 2,
      newConnection: true,
      coldStart: true,
      initType: 'on-demand',
    });
  });

  it('ignores other lines', () => {
    expect(parseTimingMessage('START RequestId: abc Version: $LATEST')).toBeUndefined();
    expect(parseTimingMessage('{"level":"error","message":"x"}')).toBeUndefined();
    expect(parseTimingMessage('{"lab":"timing",')).toBeUndefined();
  });

  it('strips the account from @log', () => {
    expect(logGroupOf(AT_LOG)).toBe(GROUP);
    expect(logGroupOf(GROUP)).toBe(GROUP);
  });
});

describe('fetchLabLogs', () => {
  beforeEach(() => logsMock.reset());

  it('returns REPORT lines prefixed with their log group and parsed timings', async () => {
    logsMock.on(StartQueryCommand, { queryString: REPORT_EXPORT_QUERY }).resolves({ queryId: 'reports' });
    logsMock.on(StartQueryCommand, { queryString: TIMINGS_QUERY }).resolves({ queryId: 'timings' });
    const report =
      'REPORT RequestId: 3f1e2d3c-1111-2222-3333-444455556666\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 512 MB\tMax Memory Used: 87 MB\tInit Duration: 150.20 ms\t\n';
    logsMock.on(GetQueryResultsCommand, { queryId: 'reports' }).resolves({
      status: 'Complete',
      results: [row({ '@timestamp': '2026-01-02 03:04:05.000', '@log': AT_LOG, '@message': report })],
    });
    logsMock.on(GetQueryResultsCommand, { queryId: 'timings' }).resolves({
      status: 'Complete',
      results: [
        row({
          '@log': AT_LOG,
          '@message':
            '2026-01-02T03:04:05.678Z\tid\tINFO\t{"lab":"timing","fn":"dynamodb-get","status":404,"dbMs":4.5,"newConnection":true,"coldStart":true,"initType":"on-demand"}',
        }),
        row({ '@log': AT_LOG, '@message': 'not "lab":"timing" json' }),
      ],
    });
    const seen = new Set<string>();
    const result = await fetchLabLogs(logs, {
      logGroups: [GROUP],
      sinceMs: Date.now() - 60_000,
      onProgress: (q) => seen.add(q),
      sleep: async () => {},
    });

    expect(result.reportLines).toEqual([`[${GROUP}] ${report.trimEnd()}`]);
    expect(result.timings).toEqual([
      {
        logGroup: GROUP,
        fn: 'dynamodb-get',
        status: 404,
        dbMs: 4.5,
        newConnection: true,
        coldStart: true,
        initType: 'on-demand',
      },
    ]);
    expect(result.unreadableTimings).toBe(1);
    expect(result.truncated).toBe(false);
    expect([...seen].sort()).toEqual(['reports', 'timings']);

    // The report's parser reads the lines and keeps the log group as the source.
    const parsed = parseLambdaLog(result.reportLines.join('\n'));
    expect(parsed.malformed).toEqual([]);
    expect(parsed.reports).toEqual([
      expect.objectContaining({ source: GROUP, durationMs: 12.34, initDurationMs: 150.2, memorySizeMb: 512 }),
    ]);
  });
});
