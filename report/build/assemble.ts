/** The one place a LabReport is put together from what a source read (report/sources/). */

import type { TargetComparison as RunComparison } from '../../runs/comparison';
import { KEEP_ALIVE_REFERENCE } from '../article-figures';
import type { FunctionStats, LabReport } from '../report-model';
import { compareKeepAlive, compareTargets, runComparisonOf, targetNotices } from './compare';
import { assembleGroups, type Groups } from './groups';
import type { BuildOptions, MalformedCollector } from './inputs';
import { readTuning } from './tuning';

/** What a source contributes; everything derived from it is computed once, below. */
export interface ReportParts {
  readonly mode: LabReport['mode'];
  readonly input: string;
  readonly files: readonly string[];
  readonly lab: LabReport['lab'];
  readonly groups: Groups;
  readonly functions: readonly FunctionStats[];
  readonly insights: LabReport['insights'];
  readonly malformed: MalformedCollector;
  /** The source's own notes; tuning notes are appended after them. */
  readonly warnings: string[];
  /** Where this source looks for tuning results unless BuildOptions.tuningDirs says otherwise. */
  readonly tuningDirs: readonly string[];
  /** The comparison the run itself recorded (summary.json); absent: computed from the groups. */
  readonly runComparison?: RunComparison | null;
}

/** The one place a LabReport is put together: the three sources differ only in how they read. */
export async function assembleReport(parts: ReportParts, options: BuildOptions): Promise<LabReport> {
  const groups = assembleGroups(parts.groups);
  const tuning = await readTuning(options.tuningDirs ?? parts.tuningDirs, parts.warnings);
  return {
    schemaVersion: 1,
    generatedAt: (options.now ?? new Date()).toISOString(),
    mode: parts.mode,
    input: parts.input,
    files: parts.files,
    notices: targetNotices(groups),
    lab: parts.lab,
    groups,
    keepAlive: compareKeepAlive(groups),
    keepAliveReference: KEEP_ALIVE_REFERENCE,
    targetComparison: compareTargets(groups),
    runComparison: parts.runComparison !== undefined ? parts.runComparison : runComparisonOf(groups),
    functions: parts.functions,
    insights: parts.insights,
    tuning,
    malformed: parts.malformed.summary(),
    warnings: parts.warnings,
  };
}
