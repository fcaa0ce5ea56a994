/**
 * What every source of a report shares: its options, the error bad input throws, and the small
 * readers of a results folder's files (JSON, Lambda log lines, handler timings) that count a
 * malformed line instead of failing on it.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { UsageError } from '../../core/errors';
import { parseLambdaLog } from '../../runs/lambda-log-parser';
import { parseTimingLines, type TimingLine } from '../../runs/results';
import type { MalformedLine, MalformedSummary } from '../report-model';

/** Input the report cannot be built from: the CLI prints the message alone and exits 2. */
export class ReportInputError extends UsageError {}

export interface BuildOptions {
  /**
   * Folders searched for `npm run tune` outputs. @default a results folder: its own `tuning/`
   * alone (what the run wrote, never another run's or the cloud's); logs and CloudWatch: `results/tuning`
   */
  readonly tuningDirs?: readonly string[];
  /** @default new Date() */
  readonly now?: Date;
  /** Progress of a long read (`--logs` on a large export), one line of text each time. */
  readonly progress?: (message: string) => void;
}

/** `--logs` says how far it got every this many lines. */
export const PROGRESS_EVERY_LINES = 100_000;

export const DEFAULT_TUNING_DIR = 'results/tuning';
const MALFORMED_EXAMPLES = 10;

export function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ReportInputError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ReportInputError(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Counts malformed lines and keeps the first few: a file of nothing but garbage stays bounded. */
export class MalformedCollector {
  private readonly examples: MalformedLine[] = [];
  private readonly byReason: Record<string, number> = {};
  private count = 0;

  add(file: string, line: number, reason: string, text: string): void {
    this.count += 1;
    this.byReason[reason] = (this.byReason[reason] ?? 0) + 1;
    if (this.examples.length < MALFORMED_EXAMPLES) {
      this.examples.push({ file, line, reason, text: text.length > 200 ? `${text.slice(0, 200)}...` : text });
    }
  }

  summary(): MalformedSummary {
    return { count: this.count, byReason: { ...this.byReason }, examples: [...this.examples] };
  }
}

export function parseLogText(text: string, file: string, malformed: MalformedCollector) {
  const parsed = parseLambdaLog(text);
  for (const m of parsed.malformed) malformed.add(file, m.line, m.reason, m.text);
  return parsed;
}

/** Timings line by line: a line cut short by a killed run is counted, not fatal. */
export function readTimings(path: string, malformed: MalformedCollector): TimingLine[] {
  const lines: TimingLine[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      if (raw.trim() === '') return;
      try {
        lines.push(...parseTimingLines(raw));
      } catch (e) {
        const reason = /is not a timing line/.test((e as Error).message) ? 'not a timing line' : 'not JSON';
        malformed.add(basename(path), i + 1, reason, raw);
      }
    });
  return lines;
}
