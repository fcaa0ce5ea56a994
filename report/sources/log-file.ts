/** The report of a file of Lambda log lines: CloudWatch export, `aws logs tail`, lambda-logs.log. */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseLambdaLine } from '../../runs/lambda-log-parser';
import { assembleReport } from '../build/assemble';
import { FunctionCollector, functionNameOf } from '../build/functions';
import { Groups, keyedGroupOf } from '../build/groups';
import {
  type BuildOptions,
  DEFAULT_TUNING_DIR,
  MalformedCollector,
  PROGRESS_EVERY_LINES,
  ReportInputError,
} from '../build/inputs';
import type { LabReport } from '../report-model';

/**
 * `aws logs tail` prints `<ISO time with offset> <log stream> <message>`; the parser reads
 * a leading `...Z` timestamp only, so the offset form is dropped here to let it find the stream.
 */
function normalizeLogLine(line: string): string {
  return line.replace(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?[+-]\d{2}:?\d{2}\s+/, '');
}

/**
 * Builds the report of a file of Lambda log lines (CloudWatch export, `aws logs tail`,
 * lambda-logs.log). The file is streamed line by line into histograms and running sums:
 * an export of millions of REPORT lines is read in bounded memory.
 */
export async function buildFromLogFile(path: string, options: BuildOptions = {}): Promise<LabReport> {
  const file = resolve(path);
  if (!existsSync(file) || !statSync(file).isFile())
    throw new ReportInputError(`--logs ${path}: no such file`);
  const name = basename(file);
  const malformed = new MalformedCollector();
  const warnings: string[] = [];
  const functions = new FunctionCollector((s) => functionNameOf(s, name));
  const groups = new Groups();
  const groupOf = keyedGroupOf((s) => s, groups);
  let lineNo = 0;
  let reportLines = 0;
  let initLines = 0;
  let otherLines = 0;
  try {
    const lines = createInterface({
      input: createReadStream(file, 'utf8'),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const raw of lines) {
      lineNo += 1;
      const parsed = parseLambdaLine(normalizeLogLine(raw));
      if (parsed.kind === 'report') {
        reportLines += 1;
        functions.addReport(parsed.record);
        groupOf(parsed.record.source)?.lines.addReport(parsed.record);
      } else if (parsed.kind === 'init') {
        initLines += 1;
        functions.addInit(parsed.record);
        groupOf(parsed.record.source)?.lines.addInit(parsed.record);
      } else if (parsed.kind === 'malformed') malformed.add(name, lineNo, parsed.reason, raw);
      else if (parsed.kind === 'other') otherLines += 1;
      if (lineNo % PROGRESS_EVERY_LINES === 0) {
        options.progress?.(
          `${name}: ${lineNo.toLocaleString('en-US')} lines read, ${reportLines.toLocaleString('en-US')} REPORT`,
        );
      }
    }
  } catch (e) {
    throw new ReportInputError(`cannot read --logs ${path}: ${(e as Error).message}`);
  }
  if (reportLines === 0) warnings.push(`no REPORT line in ${name}`);
  return assembleReport(
    {
      mode: 'logs',
      input: `Lambda log lines in ${file} (${reportLines} REPORT, ${initLines} INIT_REPORT, ${otherLines} other lines)`,
      files: [name],
      lab: null,
      groups,
      functions: functions.stats(warnings),
      insights: null,
      malformed,
      warnings,
      tuningDirs: [DEFAULT_TUNING_DIR],
    },
    options,
  );
}
