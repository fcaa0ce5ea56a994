import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import {
  CloudWatchLogsClient,
  GetQueryResultsCommand,
  type GetQueryResultsCommandInput,
  type ResultField,
  StartQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import 'aws-sdk-client-mock-vitest/extend';
import {
  COLD_WARM_QUERY,
  REPORT_EXPORT_QUERY,
  REPORT_STATS_QUERY,
  TIMINGS_QUERY,
} from '../../aws/logs-insights';
import { KEEP_ALIVE_VARIANTS, type LabFunction, labFunctions } from '../../core/lab-functions';
import type { Timing } from '../../core/timing.mjs';
import { readLabFunction } from '../../lambda/shared/env';
import { emitTiming } from '../../lambda/shared/metrics';
import { parseSince } from '../../report/build-report';
import { runReportCli } from '../../report/cli';
import type { LabReport } from '../../report/report-model';
import { getEvent } from '../support/events';
import { tableOfItsOwn } from '../support/shared-engines';
import { sharedTestEngine } from '../support/test-engine';
import { streams, tempDir } from './report-fixture';

// An obviously fake account; the ARNs only need the right shape.
const ACCOUNT = '111111111111';
const REGION = 'eu-west-1';
const NOW = Date.parse('2026-11-22T08:00:00.000Z');
// The two functions a keepAlive=both stack deploys for one operation, named as the stack names them.
const [SPEC_ON, SPEC_OFF] = labFunctions(['dynamodb'], KEEP_ALIVE_VARIANTS, ['get']);
const physicalName = (spec: LabFunction, suffix: string) => `LatencyLab-Api-${spec.id}-${suffix}`;
const ON = physicalName(SPEC_ON, 'AAA');
const OFF = physicalName(SPEC_OFF, 'BBB');
/** The environment the stack gives a function (lib/stacks/api-stack.ts): what its handlers read. */
const stackEnv = (spec: LabFunction): NodeJS.ProcessEnv => ({
  KEEP_ALIVE: spec.keepAlive,
  LAB_FUNCTION: spec.key,
});
const group = (name: string) => `/aws/lambda/${name}`;
const atLog = (name: string) => `${ACCOUNT}:${group(name)}`;

const cfnMock = mockClient(CloudFormationClient);
const logsMock = mockClient(CloudWatchLogsClient);
// Each stubs its client class for this worker process: undone when the file ends.
afterAll(() => {
  cfnMock.restore();
  logsMock.restore();
});

function functionOutputs(id: string, name: string): Output[] {
  return [
    { OutputKey: `${id}Name`, OutputValue: name },
    { OutputKey: `${id}Arn`, OutputValue: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name}:live` },
    { OutputKey: `${id}LogGroup`, OutputValue: group(name) },
  ];
}

const row = (fields: Record<string, string>): ResultField[] =>
  [...Object.entries(fields), ['@ptr', 'opaque']].map(([field, value]) => ({ field, value }));

const report = (name: string, id: number, ms: number, init?: number) =>
  row({
    '@timestamp': '2026-11-22 07:50:00.000',
    '@log': atLog(name),
    '@message': `REPORT RequestId: 0a1b2c3d-0000-4000-8000-${String(id).padStart(12, '0')}\tDuration: ${ms.toFixed(2)} ms\tBilled Duration: ${Math.ceil(ms)} ms\tMemory Size: 512 MB\tMax Memory Used: 80 MB\t${init === undefined ? '' : `Init Duration: ${init.toFixed(2)} ms\t`}`,
  });

/** The lines a handler's emitTiming writes (Powertools EMF) while `fn` runs; one capture at a time. */
async function emitted(fn: () => unknown): Promise<string[]> {
  const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await fn();
    return write.mock.calls.map(([c]) => String(c).trim()).filter((l) => l.startsWith('{"_aws"'));
  } finally {
    write.mockRestore();
  }
}

/** A Logs Insights row of a timing line, as the function of log group `name` wrote it. */
const timingRow = (name: string, message: string) =>
  row({ '@timestamp': '2026-11-22 07:50:00.000', '@log': atLog(name), '@message': message });

/** One invocation's timing line, written by emitTiming under the name the function reads from its environment. */
async function timing(
  spec: LabFunction,
  name: string,
  dbMs: number,
  newConnection: boolean,
  coldStart = false,
) {
  const t: Timing = { dbMs, newConnection, dbRequests: 1, coldStart, initType: 'provisioned-concurrency' };
  const [line] = await emitted(() => emitTiming(readLabFunction(stackEnv(spec)), 200, t));
  return timingRow(name, line);
}

/** The timing rows of the first case: keep-alive on 30 ms cold, then 8..12 ms; off 33..42 ms. */
async function timingRows(): Promise<ResultField[][]> {
  const rows = [await timing(SPEC_ON, ON, 30, true, true)];
  for (let i = 0; i < 9; i++) rows.push(await timing(SPEC_ON, ON, 8 + i * 0.5, false));
  for (let i = 0; i < 10; i++) rows.push(await timing(SPEC_OFF, OFF, 33 + i, true, i === 0));
  rows.push(row({ '@log': atLog(OFF), '@message': '{"lab":"timing", broken' }));
  return rows;
}

beforeEach(async () => {
  cfnMock.reset();
  logsMock.reset();
  cfnMock.on(DescribeStacksCommand, { StackName: 'LatencyLab-Api' }).resolves({
    Stacks: [
      {
        StackName: 'LatencyLab-Api',
        StackId: `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/LatencyLab-Api/abc`,
        StackStatus: 'CREATE_COMPLETE',
        CreationTime: new Date(0),
        Outputs: [
          { OutputKey: 'ApiUrl', OutputValue: 'https://api.example.test/lab/' },
          ...functionOutputs(SPEC_ON.id, ON),
          ...functionOutputs(SPEC_OFF.id, OFF),
        ],
      },
    ],
  });
  for (const stack of ['LatencyLab-PowerTuning', 'LatencyLab-Data']) {
    cfnMock
      .on(DescribeStacksCommand, { StackName: stack })
      .rejects(
        Object.assign(new Error(`Stack with id ${stack} does not exist`), { name: 'ValidationError' }),
      );
  }

  const queries: [string, string, ResultField[][]][] = [
    [
      REPORT_EXPORT_QUERY,
      'q-reports',
      [
        // keep-alive on: 10 warm calls at 10..19 ms, plus a provisioned environment's init
        ...Array.from({ length: 10 }, (_, i) => report(ON, i + 1, 10 + i)),
        row({
          '@log': atLog(ON),
          '@message': 'INIT_REPORT Init Duration: 250.00 ms\tPhase: init\tStatus: success',
        }),
        // keep-alive off: a cold start, then 9 calls at 40..48 ms
        report(OFF, 100, 60, 300),
        ...Array.from({ length: 9 }, (_, i) => report(OFF, 101 + i, 40 + i)),
        row({ '@log': atLog(OFF), '@message': 'REPORT RequestId: broken' }),
      ],
    ],
    [TIMINGS_QUERY, 'q-timings', await timingRows()],
    [
      REPORT_STATS_QUERY,
      'q-stats',
      [
        row({
          '@log': atLog(ON),
          'avg(duration)': '14.5',
          'max(duration)': '19',
          'min(duration)': '10',
          'pct(duration, 95)': '19',
        }),
        row({
          '@log': atLog(OFF),
          'avg(duration)': '46',
          'max(duration)': '60',
          'min(duration)': '40',
          'pct(duration, 95)': '60',
        }),
      ],
    ],
    [
      COLD_WARM_QUERY,
      'q-coldwarm',
      [
        row({
          '@log': atLog(OFF),
          coldStart: '1',
          'count(*)': '1',
          'avg(duration)': '60',
          'avg(initDuration)': '300',
        }),
      ],
    ],
  ];
  for (const [queryString, queryId, results] of queries) {
    logsMock.on(StartQueryCommand, { queryString }).resolves({ queryId });
    logsMock
      .on(GetQueryResultsCommand, { queryId })
      .resolvesOnce({ status: 'Running' })
      .resolves({ status: 'Complete', results });
  }
});

const deps = (io: ReturnType<typeof streams>) => ({
  ...io,
  env: {},
  now: () => NOW,
  sleep: async () => {},
  pollMs: 0,
  tuningDirs: [],
  makeClients: () => ({
    cfn: new CloudFormationClient({ region: REGION }),
    logs: new CloudWatchLogsClient({ region: REGION }),
  }),
});

describe('--from-cloudwatch', () => {
  it('runs the article’s query, a cold/warm split and the raw fetches, and builds the same report', async () => {
    const out = join(tempDir('report-cw'), 'out');
    const io = streams();
    const code = await runReportCli(
      ['--from-cloudwatch', '--since', '30m', '--region', REGION, '--out', out],
      deps(io),
    );
    expect(io.stderr()).not.toMatch(/^report:/m);
    expect(code).toBe(0);

    for (const queryString of [REPORT_EXPORT_QUERY, TIMINGS_QUERY, REPORT_STATS_QUERY, COLD_WARM_QUERY]) {
      expect(logsMock).toHaveReceivedCommandWith(StartQueryCommand, {
        queryString,
        logGroupNames: [group(OFF), group(ON)],
        startTime: (NOW - 30 * 60_000) / 1000,
        endTime: NOW / 1000,
      });
    }
    expect(io.stderr()).toContain('Logs Insights stats: Complete');

    const r = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LabReport;
    expect(r.mode).toBe('cloudwatch');
    expect(r.functions.map((f) => [f.name, f.duration.count, f.init.count])).toEqual([
      ['dynamodb-get-keepalive-off', 10, 1],
      ['dynamodb-get-keepalive-on', 10, 1],
    ]);
    expect(r.functions[1]).toMatchObject({ provisionedInits: 1, init: { p50: 250 } });
    expect(r.groups.map((g) => [g.id, g.layers.map((l) => l.layer)])).toEqual([
      ['dynamodb-get-keepalive-off', ['function', 'database']],
      ['dynamodb-get-keepalive-on', ['function', 'database']],
    ]);
    const on = r.groups[1];
    expect(on.connections).toMatchObject({ calls: 10, newConnections: 1 });
    expect(on.coldStarts).toMatchObject({
      handlerColdStarts: 1,
      coldStartsByInitType: { 'provisioned-concurrency': 1 },
    });
    // database p50: on 9.5..12 and 30 -> the 5th of 10 = 10.0; off 33..42 -> 37
    const db = r.keepAlive[0].layers.find((l) => l.layer === 'database');
    expect(db?.ratioP50).toBeCloseTo(37 / 10, 2);
    expect(r.insights?.stats.rows).toEqual([
      {
        function: 'dynamodb-get-keepalive-on',
        'avg(duration)': '14.5',
        'max(duration)': '19',
        'min(duration)': '10',
        'pct(duration, 95)': '19',
      },
      {
        function: 'dynamodb-get-keepalive-off',
        'avg(duration)': '46',
        'max(duration)': '60',
        'min(duration)': '40',
        'pct(duration, 95)': '60',
      },
    ]);
    expect(r.insights?.coldWarm.rows[0]).toMatchObject({
      function: 'dynamodb-get-keepalive-off',
      coldStart: '1',
    });
    // the broken REPORT row and the unreadable timing line
    expect(r.malformed.count).toBe(2);

    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain('## CloudWatch Logs Insights');
    expect(md).toContain(REPORT_STATS_QUERY);
    expect(md).toContain('| dynamodb-get-keepalive-off | 46.00 | 60.00 | 40.00 | 60.00 |');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg id="plot-cdf-dynamodb-get"');
    expect(html).toContain('<svg id="plot-keep-alive-ratio"');
  });

  it('says in the report when the REPORT lines reach the 100,000-row cap of one query', async () => {
    // every page 10,000 rows (the API's page size), with a next page always offered
    const page = Array.from({ length: 10_000 }, (_, i) => report(ON, i + 1, 10 + (i % 10)));
    logsMock
      .on(GetQueryResultsCommand, { queryId: 'q-reports' })
      .callsFake((input: GetQueryResultsCommandInput) => ({
        status: 'Complete',
        results: page,
        nextToken: `after-${input.nextToken ?? '0'}`,
      }));
    const out = join(tempDir('report-cw-cap'), 'out');
    const io = streams();
    expect(await runReportCli(['--from-cloudwatch', '--region', REGION, '--out', out], deps(io))).toBe(0);
    const r = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LabReport;
    expect(r.functions.find((f) => f.name === 'dynamodb-get-keepalive-on')?.duration.count).toBe(100_000);
    expect(r.warnings).toContain(
      'a Logs Insights query hit its 100,000-row cap: lines past it are missing, narrow --since to see every line',
    );
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('100,000-row cap');
  }, 30_000);

  it('refuses a bad --since before calling AWS', async () => {
    const out = join(tempDir('report-cw-bad'), 'out');
    const io = streams();
    const code = await runReportCli(
      ['--from-cloudwatch', '--since=-5m', '--region', REGION, '--out', out],
      deps(io),
    );
    expect(code).toBe(2);
    expect(io.stderr()).toBe(
      'report: --since must be a duration like 30m, 2h or 1d, or an ISO time in the past, got "-5m"\n',
    );
    expect(cfnMock).not.toHaveReceivedCommand(DescribeStacksCommand);
    expect(existsSync(out)).toBe(false);
  });

  it('fails with one line, writing nothing, when a query fails', async () => {
    logsMock.on(GetQueryResultsCommand, { queryId: 'q-stats' }).resolves({ status: 'Failed' });
    const out = join(tempDir('report-cw-fail'), 'out');
    const io = streams();
    const code = await runReportCli(['--from-cloudwatch', '--region', REGION, '--out', out], deps(io));
    expect(code).toBe(1);
    expect(io.stderr()).toMatch(/^report: Logs Insights query q-stats ended Failed\n$/m);
    expect(existsSync(out)).toBe(false);
  });

  it('reads --since as a duration or an ISO time', () => {
    expect(parseSince('30m', NOW)).toBe(NOW - 1_800_000);
    expect(parseSince('2h', NOW)).toBe(NOW - 7_200_000);
    expect(parseSince('1d', NOW)).toBe(NOW - 86_400_000);
    expect(parseSince('2026-11-22T07:00:00Z', NOW)).toBe(NOW - 3_600_000);
    for (const bad of ['', '30', 'm', '0m', '2026-12-01T00:00:00Z', 'soon']) {
      expect(() => parseSince(bad, NOW)).toThrow(/--since must be/);
    }
  });
});

describe('function identity: one bundle, two keep-alive variants', () => {
  const TABLE = tableOfItsOwn('Person');
  beforeAll(async () => {
    const engine = await sharedTestEngine('dynalite', TABLE);
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', engine.endpoint);
    vi.stubEnv('TABLE_NAME', TABLE);
  });
  afterAll(() => vi.unstubAllEnvs());

  /** Three invocations of the deployed get function of `spec`: its entry loaded as the stack configures it. */
  async function invokeDeployed(spec: LabFunction): Promise<string[]> {
    vi.resetModules();
    for (const [k, v] of Object.entries(stackEnv(spec))) vi.stubEnv(k, v);
    const entry = await import('../../targets/dynamodb/handler');
    return emitted(async () => {
      for (let i = 1; i <= 3; i++) await entry.get(getEvent(`ID-${spec.keepAlive}-${i}`));
    });
  }

  it('keeps keep-alive on and off apart in the metrics and in --from-cloudwatch', async () => {
    const on = await invokeDeployed(SPEC_ON);
    const off = await invokeDeployed(SPEC_OFF);
    // The EMF `function` dimension: each variant publishes its own, as CloudWatch metrics key them.
    const dimension = (lines: string[]) => [...new Set(lines.map((l) => JSON.parse(l).function))];
    expect(on).toHaveLength(3);
    expect(off).toHaveLength(3);
    expect(dimension(on)).toEqual(['dynamodb-get-keepalive-on']);
    expect(dimension(off)).toEqual(['dynamodb-get-keepalive-off']);
    expect(JSON.parse(on[0])._aws.CloudWatchMetrics[0].Dimensions[0]).toContain('function');

    // The same lines, as Logs Insights returns them from each function's log group.
    logsMock.on(GetQueryResultsCommand, { queryId: 'q-timings' }).resolves({
      status: 'Complete',
      results: [...on.map((l) => timingRow(ON, l)), ...off.map((l) => timingRow(OFF, l))],
    });
    const out = join(tempDir('report-cw-identity'), 'out');
    const io = streams();
    expect(await runReportCli(['--from-cloudwatch', '--region', REGION, '--out', out], deps(io))).toBe(0);
    const r = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as LabReport;
    // Each variant's handler samples in its own group; none in a `default` one.
    expect(r.groups.map((g) => [g.id, g.connections?.calls])).toEqual([
      ['dynamodb-get-keepalive-off', 3],
      ['dynamodb-get-keepalive-on', 3],
    ]);
    expect(r.keepAlive).toHaveLength(1);
  });
});
