/**
 * The summary.json reader: the file, parsed and checked against the one schema
 * (runs/summary-schema.ts). Every reader of a results folder's summary goes through here, so a
 * folder from another version is refused in one place with one message.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../core/errors';
import { checkSummary, type LoadSummary } from './summary-schema';

/** Reads and validates a summary.json; throws a UsageError naming the file and what does not fit. */
export function readSummary(path: string): LoadSummary {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read summary ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`summary ${path} is not valid JSON: ${(e as Error).message}`);
  }
  return checkSummary(json, path);
}
