/**
 * summary.json rebuilt from a results folder's Artillery reports alone (artillery-*.json): what a
 * distributed run leaves, where no timings.jsonl or lambda-logs.log came back. The handlers' side
 * of each row comes from the processor's custom metrics (runs/artillery-metrics.ts), Artillery's
 * side as for any run (runs/artillery-reader.ts).
 *
 * What only local files hold stays out: Init Duration and function Duration (REPORT lines), cost,
 * the memory model and CPU, and the gap before a phase (its afterGap block).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { OPERATIONS } from '../core/lab-functions';
import { hasLabMetrics, loadShapeFromReport, timingSummaryFromReport } from './artillery-metrics';
import { readArtilleryReport, summarizeRun } from './artillery-reader';
import { type LabRow, toLabRow } from './results';
import { writeLoadSummary } from './summary-writer';

/** artillery-<target>-keepalive-<variant>-<phase>[-<memory>mb].json, as load-phases.ts names them. */
export const ARTILLERY_PHASE_FILE =
  /^artillery-([a-z0-9]+)-keepalive-([a-z]+)-([a-z0-9]+)(?:-(\d+)mb)?\.json$/;

export interface RebuiltSummary {
  readonly path: string;
  readonly rows: readonly LabRow[];
  /** what the caller should say: reports without the lab's metrics */
  readonly warnings: readonly string[];
}

/** The phase reports of a folder (warm-ups and seeding left out), in the lab's phase order. */
export function phaseReports(
  dir: string,
): { file: string; target: string; keepAlive: string; phase: string; memoryMb?: number }[] {
  const found = readdirSync(dir).flatMap((file) => {
    const m = ARTILLERY_PHASE_FILE.exec(file);
    if (!m || !(OPERATIONS as readonly string[]).includes(m[3])) return [];
    return [
      { file, target: m[1], keepAlive: m[2], phase: m[3], ...(m[4] ? { memoryMb: Number(m[4]) } : {}) },
    ];
  });
  const order = (p: string) => (OPERATIONS as readonly string[]).indexOf(p);
  return found.sort(
    (a, b) =>
      a.target.localeCompare(b.target) ||
      a.keepAlive.localeCompare(b.keepAlive) ||
      (a.memoryMb ?? 0) - (b.memoryMb ?? 0) ||
      order(a.phase) - order(b.phase),
  );
}

/** Writes dir/summary.json from the folder's Artillery reports; throws when there are none. */
export function rebuildSummaryFromArtillery(dir: string): RebuiltSummary {
  const reports = phaseReports(dir);
  if (reports.length === 0)
    throw new Error(`no Artillery report (artillery-<target>-keepalive-<variant>-<phase>.json) in ${dir}`);
  const warnings: string[] = [];
  const rows = reports.map(({ file, target, keepAlive, phase, memoryMb }) => {
    const report = readArtilleryReport(join(dir, file));
    if (!hasLabMetrics(report))
      warnings.push(
        `${file} has no lab.* metrics (written before the processor emitted them): no database layer for it`,
      );
    const row = toLabRow(
      { target, keepAlive, phase },
      summarizeRun(report),
      timingSummaryFromReport(report),
      null,
      loadShapeFromReport(report),
    );
    return memoryMb === undefined ? row : { ...row, memoryMb };
  });
  const reached = rows.map((r) => r.maxInFlight);
  const path = writeLoadSummary(
    dir,
    {
      target: 'unknown',
      source: 'artillery',
      sourceNote:
        "rebuilt from Artillery's reports alone: Init Duration, function Duration, cost and the memory model need the run's local files",
      maxInFlight: reached.length > 0 ? Math.max(...reached) : null,
    },
    rows,
    [],
  );
  return { path, rows, warnings };
}
