/**
 * Builds a `LabReport` (report-model.ts) from one of three sources, each read by its own module:
 *   - a load run's results folder (sources/results-folder.ts: summary.json, artillery-*.json,
 *     timings.jsonl, lambda-logs.log),
 *   - a file of Lambda log lines as CloudWatch exports them (sources/log-file.ts, `--logs`),
 *   - the deployed stack's log groups through Logs Insights (sources/cloudwatch.ts, `--from-cloudwatch`).
 * Each source only reads into groups, functions and notes; build/assemble.ts turns those parts
 * into the one LabReport. Bad input (a missing folder, a summary.json of another version, JSON
 * that does not parse) throws a ReportInputError before anything is written; malformed log
 * lines are counted instead.
 */
export { assembleReport } from './build/assemble';
export { compareKeepAlive, compareTargets, targetLabel, targetNotices } from './build/compare';
export { functionNameOf } from './build/functions';
export { groupId } from './build/groups';
export { type BuildOptions, PROGRESS_EVERY_LINES, ReportInputError } from './build/inputs';
export { readTuning } from './build/tuning';
export { buildFromCloudWatch, type CloudWatchInput, parseSince } from './sources/cloudwatch';
export { buildFromLogFile } from './sources/log-file';
export { buildFromResultsDir } from './sources/results-folder';
