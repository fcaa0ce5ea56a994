/**
 * The report of the deployed stack's log groups through Logs Insights (`--from-cloudwatch`):
 * REPORT lines, the handlers' timing lines, and the article's own Insights statistics.
 */
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { AwsOptions } from '../../aws/aws-options';
import type { InsightsProgress } from '../../aws/logs-insights';
import { parseFunctionKey } from '../../core/lab-functions';
import { assembleReport } from '../build/assemble';
import { collectFunctions, functionNameOf } from '../build/functions';
import { addHandlerSample, Groups, groupsFromKeyedReports } from '../build/groups';
import {
  type BuildOptions,
  DEFAULT_TUNING_DIR,
  MalformedCollector,
  parseLogText,
  ReportInputError,
} from '../build/inputs';
import type { LabReport } from '../report-model';

const SINCE_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** `30m`, `2h`, `1d`, `90s`, `1w`, or an ISO time; returns the window start in epoch ms. */
export function parseSince(value: string, nowMs: number): number {
  const v = value.trim();
  const rel = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)$/.exec(v);
  let since: number | undefined;
  if (rel) since = nowMs - Number(rel[1]) * SINCE_UNITS_MS[rel[2]];
  else if (/^\d{4}-\d{2}-\d{2}/.test(v) && Number.isFinite(Date.parse(v))) since = Date.parse(v);
  if (since === undefined || !(since < nowMs)) {
    throw new ReportInputError(
      `--since must be a duration like 30m, 2h or 1d, or an ISO time in the past, got ${JSON.stringify(value)}`,
    );
  }
  return since;
}

export interface CloudWatchInput {
  readonly aws: AwsOptions;
  readonly sinceMs: number;
  /** @default now */
  readonly untilMs?: number;
  readonly cfn: CloudFormationClient;
  readonly logs: CloudWatchLogsClient;
  readonly onProgress?: (query: string, progress: InsightsProgress) => void;
  /** Injected in tests. */
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly pollMs?: number;
}

/**
 * Builds the report from the deployed functions' log groups: the REPORT lines and the
 * handlers' timing lines (fetchLabLogs), plus the article's Insights statistics and a
 * cold/warm split computed by Insights itself, shown beside the report's own numbers.
 */
export async function buildFromCloudWatch(
  input: CloudWatchInput,
  options: BuildOptions = {},
): Promise<LabReport> {
  const { readLabOutputs } = await import('../../aws/stack-outputs');
  const { fetchLabLogs, runInsights, logGroupOf, REPORT_STATS_QUERY, COLD_WARM_QUERY, MAX_INSIGHTS_ROWS } =
    await import('../../aws/logs-insights');
  const outputs = await readLabOutputs(input.cfn, input.aws.stackPrefix);
  const keyByGroup = new Map(outputs.functions.map((f) => [f.logGroup, f.key]));
  const common = {
    logGroups: outputs.functions.map((f) => f.logGroup),
    sinceMs: input.sinceMs,
    untilMs: input.untilMs ?? (input.now ?? Date.now)(),
    ...(input.now ? { now: input.now } : {}),
    ...(input.sleep ? { sleep: input.sleep } : {}),
    ...(input.pollMs !== undefined ? { pollMs: input.pollMs } : {}),
  };
  const progress = (query: string) =>
    input.onProgress ? (p: InsightsProgress) => input.onProgress?.(query, p) : undefined;
  const [labLogs, statsRows, coldWarmRows] = await Promise.all([
    fetchLabLogs(input.logs, { ...common, onProgress: input.onProgress }),
    runInsights(input.logs, { ...common, query: REPORT_STATS_QUERY, onProgress: progress('stats') }),
    runInsights(input.logs, { ...common, query: COLD_WARM_QUERY, onProgress: progress('cold/warm') }),
  ]);

  const malformed = new MalformedCollector();
  const warnings: string[] = [];
  if (labLogs.truncated) {
    warnings.push(
      `a Logs Insights query hit its ${MAX_INSIGHTS_ROWS.toLocaleString('en-US')}-row cap: lines past it are missing, narrow --since to see every line`,
    );
  }
  for (let i = 0; i < labLogs.unreadableTimings; i++) {
    malformed.add('timing lines', i + 1, 'unreadable timing line', '(Logs Insights row)');
  }
  const parsed = parseLogText(labLogs.reportLines.join('\n'), 'REPORT lines', malformed);
  const keyOf = (source: string | undefined) => (source ? keyByGroup.get(source) : undefined);
  const groups = new Groups();
  groupsFromKeyedReports(parsed.reports, parsed.inits, keyOf, groups);
  for (const t of labLogs.timings) {
    const parts = parseFunctionKey(t.fn);
    if (!parts) continue;
    addHandlerSample(groups.get(parts.target, parts.keepAlive ?? 'default', parts.operation), t);
  }
  const functions = collectFunctions(
    parsed.reports,
    parsed.inits,
    (s) => {
      const key = keyOf(s);
      return key ? { name: key, nameFrom: 'function' } : functionNameOf(s, 'CloudWatch');
    },
    warnings,
  );
  const withFunction = (rows: readonly Record<string, string>[]) =>
    rows.map(({ '@log': log, ...rest }) => {
      const group = logGroupOf(log);
      return { function: keyByGroup.get(group) ?? group, ...rest };
    });
  const from = new Date(input.sinceMs).toISOString();
  return assembleReport(
    {
      mode: 'cloudwatch',
      input: `CloudWatch Logs of ${outputs.functions.length} functions of stack ${input.aws.stackPrefix}-Api in ${input.aws.region} since ${from}`,
      files: common.logGroups,
      lab: {
        target: 'aws',
        region: input.aws.region,
        stackPrefix: input.aws.stackPrefix,
        apiUrl: outputs.apiUrl,
        since: from,
      },
      groups,
      functions,
      insights: {
        stats: { query: REPORT_STATS_QUERY, rows: withFunction(statsRows) },
        coldWarm: { query: COLD_WARM_QUERY, rows: withFunction(coldWarmRows) },
      },
      malformed,
      warnings,
      tuningDirs: [DEFAULT_TUNING_DIR],
    },
    options,
  );
}
