/**
 * Writes summary.json: the rows of the phases that ran, the phases that failed, and the
 * comparison across targets (runs/comparison.ts; null when there is nothing to compare), checked
 * against the one schema before it is written. `npm run load` and the report's rebuild from
 * Artillery's reports (runs/summary-from-artillery.ts) both write through here.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareTargets } from './comparison';
import {
  checkSummary,
  type FailedPhase,
  type LabBlock,
  type LabRow,
  SUMMARY_VERSION,
} from './summary-schema';

export function writeLoadSummary(
  outDir: string,
  lab: LabBlock,
  rows: readonly LabRow[],
  failed: readonly FailedPhase[],
): string {
  const path = join(outDir, 'summary.json');
  const summary = {
    version: SUMMARY_VERSION,
    generatedAt: new Date().toISOString(),
    lab,
    runs: rows,
    failedPhases: failed,
    comparison: compareTargets(rows),
  };
  // Round-tripped through JSON and the schema before it is written: what a reader will get.
  const text = `${JSON.stringify(summary, null, 2)}\n`;
  checkSummary(JSON.parse(text), path);
  writeFileSync(path, text);
  return path;
}
