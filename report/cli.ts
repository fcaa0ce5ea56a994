/**
 * `npm run report -- --in RESULTS_DIR | --logs FILE | --from-cloudwatch [--out DIR]`.
 * Exit status: 0 written, 2 bad arguments or input (one line, nothing written), 1 anything else.
 * Only argument handling loads up front; the readers, the renderers (vega) and the AWS SDK
 * are imported on the branch that needs them, so --help and a bad option answer at once.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { AWS_OPTION_SPECS, AWS_OPTIONS_HELP, type AwsOptions, UsageError } from '../aws/aws-options';
import type { InsightsProgress } from '../aws/logs-insights';
import { describeCliError } from '../core/errors';
import { loadTargetModules } from '../targets/registry';
import type { LabReport } from './report-model';

// Target modules LAB_TARGET_MODULES names give the report their labels and notices.
await loadTargetModules();

export const REPORT_HELP = `Usage: npm run report -- <input> [--out DIR]

Inputs (one of):
  --in DIR             a results folder written by npm run load (summary.json, artillery-*.json,
                       timings.jsonl, lambda-logs.log); with Artillery's reports alone (a
                       distributed run), its summary.json is written from them first
  --logs FILE          Lambda log lines as CloudWatch exports them (REPORT / INIT_REPORT lines among others)
  --from-cloudwatch    the deployed stack's function logs, through CloudWatch Logs Insights
    --since T          window: 30m, 2h, 1d or an ISO time (default 30m)

Output:
  --out DIR            where report.html, report.md and report.json go
                       (default: the --in folder, else results/report-<time>)
Power Tuning results are included from <in>/tuning/ with --in (only what belongs to that run:
npm run tune -- --out <in>/tuning puts one there), from results/tuning/ with --logs and --from-cloudwatch.

${AWS_OPTIONS_HELP}`;

export interface CliStream {
  write(chunk: string): unknown;
}

export interface ReportClients {
  readonly cfn: CloudFormationClient;
  readonly logs: CloudWatchLogsClient;
}

export interface ReportCliDeps {
  readonly out: CliStream;
  readonly err: CliStream;
  readonly env?: NodeJS.ProcessEnv;
  /** Injected in tests (mocked clients). */
  readonly makeClients?: (aws: AwsOptions) => Promise<ReportClients> | ReportClients;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly pollMs?: number;
  /** @default --in: [<in>/tuning]; --logs, --from-cloudwatch: [results/tuning] */
  readonly tuningDirs?: readonly string[];
}

async function defaultClients(aws: AwsOptions): Promise<ReportClients> {
  const [{ CloudFormationClient }, { CloudWatchLogsClient }, { sdkClientConfig }] = await Promise.all([
    import('@aws-sdk/client-cloudformation'),
    import('@aws-sdk/client-cloudwatch-logs'),
    import('../aws/aws-options'),
  ]);
  const config = sdkClientConfig(aws);
  return { cfn: new CloudFormationClient(config), logs: new CloudWatchLogsClient(config) };
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[:.]/g, '-').replace('Z', '');

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        in: { type: 'string' },
        out: { type: 'string' },
        logs: { type: 'string' },
        'from-cloudwatch': { type: 'boolean' },
        since: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        ...AWS_OPTION_SPECS,
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    // parseArgs throws TypeErrors for unknown options and missing values, some over several lines.
    throw new UsageError(`${(e as Error).message.replace(/\s*\n\s*/g, ' ')} (see --help)`);
  }
}

export async function runReportCli(argv: readonly string[], deps: ReportCliDeps): Promise<number> {
  const now = deps.now ?? Date.now;
  let awsProfile: string | undefined;
  try {
    const values = parse(argv);
    if (values.help) {
      deps.out.write(`${REPORT_HELP}\n`);
      return 0;
    }
    const modes = [values.in !== undefined, values.logs !== undefined, values['from-cloudwatch'] === true];
    if (modes.filter(Boolean).length !== 1) {
      throw new UsageError(
        'give exactly one input: --in RESULTS_DIR, --logs FILE or --from-cloudwatch (see --help)',
      );
    }
    if (values.since !== undefined && !values['from-cloudwatch']) {
      throw new UsageError('--since goes with --from-cloudwatch');
    }
    const awsFlags = ['region', 'profile', 'stack-prefix'] as const;
    if (!values['from-cloudwatch'] && awsFlags.some((f) => values[f] !== undefined)) {
      throw new UsageError('--region, --profile and --stack-prefix go with --from-cloudwatch');
    }
    const options = deps.tuningDirs ? { tuningDirs: deps.tuningDirs } : {};
    const [{ buildFromCloudWatch, buildFromLogFile, buildFromResultsDir, parseSince }, { writeReportFiles }] =
      await Promise.all([import('./build-report'), import('./write-report')]);

    let report: LabReport;
    if (values.in !== undefined) {
      report = await buildFromResultsDir(values.in, options);
    } else if (values.logs !== undefined) {
      // A large export takes a while: say how far the read got, on stderr (stdout is the summary).
      report = await buildFromLogFile(values.logs, {
        ...options,
        progress: (m) => deps.err.write(`report: ${m}\n`),
      });
    } else {
      const sinceMs = parseSince(values.since ?? '30m', now());
      const { resolveAwsOptions } = await import('../aws/aws-options');
      const aws = resolveAwsOptions(values, { env: deps.env });
      awsProfile = aws.profile;
      const clients = await (deps.makeClients ?? defaultClients)(aws);
      const lastStatus = new Map<string, string>();
      try {
        report = await buildFromCloudWatch(
          {
            aws,
            sinceMs,
            untilMs: now(),
            ...clients,
            now,
            ...(deps.sleep ? { sleep: deps.sleep } : {}),
            ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
            onProgress: (query: string, p: InsightsProgress) => {
              if (lastStatus.get(query) === p.status) return;
              lastStatus.set(query, p.status);
              deps.err.write(`Logs Insights ${query}: ${p.status}, ${p.recordsMatched} records matched\n`);
            },
          },
          options,
        );
      } finally {
        // Close keep-alive sockets so the process ends with the report.
        clients.cfn.destroy();
        clients.logs.destroy();
      }
    }

    const outDir = values.out ?? values.in ?? join('results', `report-${stamp(now())}`);
    await writeReportFiles(report, outDir);
    const m = report.malformed.count;
    deps.out.write(
      `Report written to ${resolve(outDir)}: report.html, report.md, report.json` +
        ` (${report.groups.length} runs, ${report.functions.length} functions, ${m} malformed line${m === 1 ? '' : 's'})\n`,
    );
    for (const w of report.warnings) deps.out.write(`note: ${w}\n`);
    return 0;
  } catch (e) {
    const { code, line } = describeCliError(e, { program: 'report', profile: awsProfile });
    deps.err.write(`${line}\n`);
    return code;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await runReportCli(process.argv.slice(2), { out: process.stdout, err: process.stderr });
}
