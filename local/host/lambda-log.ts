/**
 * Lambda's platform log lines, in the exact text format CloudWatch shows, so one parser
 * reads local runs and CloudWatch exports alike. Fields are tab-separated, and a
 * REPORT line ends with a tab, as Lambda writes it.
 */

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

export const startLine = (requestId: string) => `START RequestId: ${requestId} Version: $LATEST`;
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

/** What a provisioned environment's init leaves in its log stream (no invocation to report it). */
export function initReportLine(initDurationMs: number, status: 'success' | 'error' = 'success'): string {
  return `INIT_REPORT Init Duration: ${initDurationMs.toFixed(2)} ms\tPhase: init\tStatus: ${status}`;
}
