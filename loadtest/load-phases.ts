/**
 * The phases of `npm run load` (each target x keep-alive variant: create, then the operations
 * that read or change what it wrote: get, overwrite, update, query) and the
 * summary.json they leave. A phase that leaves no Artillery JSON is recorded as failed with
 * its reason; the other phases keep their rows, the summary and the report are still
 * written, and the run exits non-zero.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS, type Operation } from '../core/lab-functions';
import {
  filterTimings,
  type LabRow,
  readArtilleryReport,
  readTimingLines,
  summarizeRun,
  summarizeTimings,
  type TimingLine,
  toLabRow,
} from '../runs/results';
import type { RunArtilleryOptions, RunArtilleryResult } from './artillery-runner';

/** The phases a run has unless told otherwise. */
export const DEFAULT_PHASES: readonly Operation[] = ['create', 'get'];
/** Phases whose requests name a Person the create phase wrote (its GovIds are their payload). */
const READS_CREATED: ReadonlySet<Operation> = new Set(['get', 'overwrite', 'update']);

/**
 * The phases to run, in the lab's order (create first, so the others find its Persons).
 * Throws when a phase needs the create phase's GovIds and create is not among them.
 */
export function orderPhases(operations: readonly Operation[]): Operation[] {
  const chosen = OPERATIONS.filter((o) => operations.includes(o));
  const orphan = chosen.find((o) => READS_CREATED.has(o));
  if (orphan && !chosen.includes('create')) {
    throw new Error(`the ${orphan} phase works on the Persons the create phase writes: add create`);
  }
  return chosen;
}

/** A phase that produced no usable results, and why. */
export interface FailedPhase {
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  readonly reason: string;
}

export interface LoadPhasesOptions {
  readonly outDir: string;
  readonly url: string;
  readonly basePath: (target: string, variant: string) => string;
  readonly env: Readonly<Record<string, string>>;
  readonly targets: readonly string[];
  readonly variants: readonly string[];
  /** Which operations run, each as a phase (ordered by orderPhases). @default DEFAULT_PHASES */
  readonly operations?: readonly Operation[];
  readonly durationS: number;
  readonly ratePerS: number;
  readonly platform?: string;
  readonly signal?: AbortSignal;
  /** Init Duration p50 of the phase's function, from its REPORT lines (local runs). */
  readonly initMsP50?: (
    target: string,
    variant: string,
    phase: string,
  ) => Promise<number | null> | number | null;
  /** The runner; tests inject one. */
  readonly runArtillery: (opts: RunArtilleryOptions) => Promise<RunArtilleryResult>;
  readonly log: (line: string) => void;
  readonly logError: (line: string) => void;
}

export interface LoadPhasesResult {
  readonly rows: LabRow[];
  readonly failed: FailedPhase[];
  /** the signal aborted: the caller stops without a summary */
  readonly interrupted: boolean;
}

function timingsOf(file: string): TimingLine[] {
  // No response at all leaves no timings file: zero timings, not a failure.
  return existsSync(file) ? readTimingLines(file) : [];
}

/** Why a phase's output cannot be read; undefined when it can. */
function missingOutput(outJson: string, result: RunArtilleryResult): string | undefined {
  if (existsSync(outJson)) return undefined;
  const last = result.outputTail.filter((l) => l.trim() !== '').at(-1);
  return `no Artillery JSON (${outJson}); Artillery exited with ${result.exitCode}${last ? `: ${last.trim()}` : ''}`;
}

export async function runLoadPhases(o: LoadPhasesOptions): Promise<LoadPhasesResult> {
  const timingsFile = join(o.outDir, 'timings.jsonl');
  const rows: LabRow[] = [];
  const failed: FailedPhase[] = [];
  const phases = orderPhases(o.operations ?? DEFAULT_PHASES);
  const total = o.targets.length * o.variants.length * phases.length;
  let n = 0;
  for (const target of o.targets) {
    for (const variant of o.variants) {
      const govIds = join(o.outDir, `govids-${target}-keepalive-${variant}.csv`);
      for (const phase of phases) {
        n += 1;
        const label = `${target} keep-alive ${variant} ${phase}`;
        o.log(`\n[${n}/${total}] ${label}: ${o.durationS} s at ${o.ratePerS}/s`);
        const outJson = join(o.outDir, `artillery-${target}-keepalive-${variant}-${phase}.json`);
        const labels = { target, keepAlive: variant, phase };
        let result: RunArtilleryResult;
        try {
          result = await o.runArtillery({
            operation: phase,
            labTarget: target,
            target: o.url,
            basePath: o.basePath(target, variant),
            durationS: o.durationS,
            ratePerS: o.ratePerS,
            outJson,
            env: { ...o.env, LAB_TIMINGS_FILE: timingsFile, LAB_GOVIDS_FILE: govIds, LAB_KEEPALIVE: variant },
            payload: READS_CREATED.has(phase) ? govIds : undefined,
            platform: o.platform,
            signal: o.signal,
            onProgress: (p) =>
              o.log(
                `  ${label}: ${Math.round(p.elapsedS)}/${o.durationS} s  requests ${p.requests}  errors ${p.errors}`,
              ),
          });
        } catch (e) {
          // Artillery could not even start (bad options, a missing scenario): this phase only.
          const reason = `Artillery did not run: ${e instanceof Error ? e.message : String(e)}`;
          failed.push({ ...labels, reason });
          o.logError(`  ${label} failed: ${reason}`);
          continue;
        }
        if (o.signal?.aborted) return { rows, failed, interrupted: true };
        if (result.exitCode !== 0) {
          o.logError(`Artillery exited with ${result.exitCode}:\n${result.outputTail.slice(-15).join('\n')}`);
        }
        const missing = missingOutput(outJson, result);
        if (missing) {
          failed.push({ ...labels, reason: missing });
          o.logError(`  ${label} failed: ${missing}`);
          continue;
        }
        try {
          const run = summarizeRun(readArtilleryReport(outJson));
          const timings = summarizeTimings(filterTimings(timingsOf(timingsFile), { target, variant, phase }));
          const row = toLabRow(labels, run, timings, (await o.initMsP50?.(target, variant, phase)) ?? null);
          rows.push(row);
          o.log(
            `  done in ${(result.wallMs / 1000).toFixed(1)} s: ${row.requests} requests, ${row.errors} errors, p50 ${row.latencyMs?.p50 ?? '-'} ms, db p50 ${row.dbMs?.p50?.toFixed(2) ?? '-'} ms`,
          );
        } catch (e) {
          const reason = `results unreadable: ${e instanceof Error ? e.message : String(e)}`;
          failed.push({ ...labels, reason });
          o.logError(`  ${label} failed: ${reason}`);
        }
      }
    }
  }
  return { rows, failed, interrupted: false };
}

/** Writes summary.json: the rows of the phases that ran and the phases that failed. */
export function writeLoadSummary(
  outDir: string,
  lab: Readonly<Record<string, unknown>>,
  rows: readonly LabRow[],
  failed: readonly FailedPhase[],
): string {
  const path = join(outDir, 'summary.json');
  const summary = { generatedAt: new Date().toISOString(), lab, runs: rows, failedPhases: failed };
  writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
  return path;
}

/** 1 when a request or a phase failed. */
export function loadExitCode(rows: readonly LabRow[], failed: readonly FailedPhase[]): number {
  return failed.length > 0 || rows.some((r) => r.errors > 0) ? 1 : 0;
}
