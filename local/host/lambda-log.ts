/**
 * Lambda's platform log lines, in the exact text format CloudWatch shows, so one parser
 * reads local runs and CloudWatch exports alike. Fields are tab-separated, and a
 * REPORT line ends with a tab, as Lambda writes it.
 */
import { createHash } from 'node:crypto';

export interface ReportFields {
  readonly requestId: string;
  readonly durationMs: number;
  readonly memorySizeMb: number;
  readonly maxMemoryUsedMb: number;
  /** Present on the first invocation of an on-demand environment only. */
  readonly initDurationMs?: number;
  /** Set when the invocation did not end normally. */
  readonly status?: 'error' | 'timeout';
  readonly errorType?: string;
}

/**
 * Billed Duration rounds up to the millisecond; since August 2025 Lambda also bills the
 * init phase of on-demand managed-runtime functions, so it is added when present.
 */
export function billedDurationMs(durationMs: number, initDurationMs?: number): number {
  return Math.ceil(durationMs + (initDurationMs ?? 0));
}

/** `version` is what ran: `$LATEST` for an unqualified call, a version number through an alias. */
export const startLine = (requestId: string, version = '$LATEST') =>
  `START RequestId: ${requestId} Version: ${version}`;
export const endLine = (requestId: string) => `END RequestId: ${requestId}`;

export function reportLine(r: ReportFields): string {
  const parts = [
    `REPORT RequestId: ${r.requestId}`,
    `Duration: ${r.durationMs.toFixed(2)} ms`,
    `Billed Duration: ${billedDurationMs(r.durationMs, r.initDurationMs)} ms`,
    `Memory Size: ${r.memorySizeMb} MB`,
    `Max Memory Used: ${r.maxMemoryUsedMb} MB`,
  ];
  if (r.initDurationMs !== undefined) parts.push(`Init Duration: ${r.initDurationMs.toFixed(2)} ms`);
  if (r.status) parts.push(`Status: ${r.status}`);
  if (r.errorType) parts.push(`Error Type: ${r.errorType}`);
  return `${parts.join('\t')}\t`;
}

/**
 * What an init leaves in the log stream when no invocation reports it: a provisioned
 * environment's, or a failed one (then with Lambda's error type, e.g. Runtime.ImportModuleError).
 */
export function initReportLine(
  initDurationMs: number,
  status: 'success' | 'error' = 'success',
  errorType?: string,
): string {
  const line = `INIT_REPORT Init Duration: ${initDurationMs.toFixed(2)} ms\tPhase: init\tStatus: ${status}`;
  return errorType ? `${line}\tError Type: ${errorType}` : line;
}

/**
 * Lambda's runtime revision the local environments name in INIT_START. Lambda moves it on
 * each runtime update; here it is fixed, and the ARN's hash follows the Node binary, so the
 * line is stable for one Node and changes when the pinned Node does, as Lambda's does.
 */
export const LOCAL_RUNTIME_REVISION = 12;

/** `INIT_START Runtime Version: nodejs:24.v12\tRuntime Version ARN: arn:aws:lambda:<region>::runtime:<64 hex>` */
export function initStartLine(nodeVersion: string, region: string): string {
  const major = nodeVersion.replace(/^v/, '').split('.')[0];
  const runtimeVersion = `nodejs:${major}.v${LOCAL_RUNTIME_REVISION}`;
  const hash = createHash('sha256').update(`${runtimeVersion} node ${nodeVersion}`).digest('hex');
  return `INIT_START Runtime Version: ${runtimeVersion}\tRuntime Version ARN: arn:aws:lambda:${region}::runtime:${hash}`;
}

/**
 * Lambda's error type for a failed init, from what the runtime reported. The Node runtime
 * names its own errors `Runtime.*`; anything else the function threw is `Runtime.Unknown`.
 */
export function initErrorType(errorType: string): string {
  return /^(Runtime|Function)\.[A-Z][a-zA-Z]+$/.test(errorType) ? errorType : 'Runtime.Unknown';
}
