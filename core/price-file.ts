/**
 * The price files (core/prices/<region>.json): one per region, each price with its unit, its
 * source and the date it was read, plus the metering rules that turn bytes into billed units
 * and the lines (free tiers, storage, fixed plans) that never enter a per-request figure. A
 * price that could not be verified is null with the reason, never a guess.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isRecord } from './timing.mjs';

export type CostGroup = 'lambda' | 'api' | 'database';
const GROUPS: readonly CostGroup[] = ['lambda', 'api', 'database'];

export interface PriceEntry {
  readonly group: CostGroup;
  /** Dollars per `per` units; null when it could not be verified (see `unverified`). */
  readonly usd: number | null;
  readonly per: number;
  readonly unit: string;
  readonly source: string;
  /** YYYY-MM-DD */
  readonly read: string;
  readonly unverified?: string;
  readonly note?: string;
}

export interface DynamoDbMetering {
  readonly readUnitBytes: number;
  readonly writeUnitBytes: number;
  readonly eventuallyConsistentReadFactor: number;
  readonly transactionalFactor: number;
  readonly source: string;
  readonly read: string;
}

export interface DsqlMetering {
  readonly computeDpuPerSecond: number;
  readonly writeDpuPerByte: number;
  readonly readDpuPerByte: number;
  readonly rowMinBytes: number;
  readonly writeTransactionMinBytes: number;
  readonly readTransactionMinBytes: number;
  readonly source: string;
  readonly read: string;
}

export interface SeparateLine {
  readonly label: string;
  readonly what: string;
  readonly source: string;
  readonly read: string;
  /** price key -> units free each month */
  readonly freeMonthly: Readonly<Record<string, number>>;
}

export interface PriceFile {
  readonly region: string;
  readonly currency: 'USD';
  readonly read: string;
  readonly note?: string;
  readonly prices: Readonly<Record<string, PriceEntry>>;
  readonly metering: { readonly dynamodb: DynamoDbMetering; readonly dsql: DsqlMetering };
  readonly separate: readonly SeparateLine[];
  /** Where it was read from (set by loadPriceFile, not part of the file). */
  readonly file?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

const here = dirname(fileURLToPath(import.meta.url));
/** The folder of the dated price files. */
export const PRICES_DIR = join(here, 'prices');
/** The price file every report uses unless `--prices FILE` says otherwise. */
export const DEFAULT_PRICE_FILE = join(PRICES_DIR, 'us-east-1.json');

function text(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.trim() === '') throw new Error(`${where} must be a non-empty string`);
  return v;
}

function date(v: unknown, where: string): string {
  const s = text(v, where);
  if (!DATE.test(s) || Number.isNaN(Date.parse(s)))
    throw new Error(`${where} must be a date YYYY-MM-DD, got '${s}'`);
  return s;
}

function positive(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw new Error(`${where} must be a number > 0`);
  return v;
}

function source(v: unknown, where: string): string {
  const s = text(v, where);
  if (!/https:\/\/\S+/.test(s)) throw new Error(`${where} must cite a https URL, got '${s}'`);
  return s;
}

function entry(v: unknown, where: string): PriceEntry {
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  const group = v.group;
  if (typeof group !== 'string' || !GROUPS.includes(group as CostGroup)) {
    throw new Error(`${where}.group must be one of ${GROUPS.join(', ')}`);
  }
  let usd: number | null;
  let unverified: string | undefined;
  if (v.usd === null) {
    // An unverified price says why; silence would read as "free".
    unverified = text(v.unverified, `${where}.unverified (required when usd is null)`);
    usd = null;
  } else {
    if (typeof v.usd !== 'number' || !Number.isFinite(v.usd) || v.usd < 0) {
      throw new Error(`${where}.usd must be a number >= 0 or null`);
    }
    usd = v.usd;
  }
  return {
    group: group as CostGroup,
    usd,
    per: positive(v.per, `${where}.per`),
    unit: text(v.unit, `${where}.unit`),
    source: source(v.source, `${where}.source`),
    read: date(v.read, `${where}.read`),
    ...(unverified === undefined ? {} : { unverified }),
    ...(typeof v.note === 'string' ? { note: v.note } : {}),
  };
}

function numbers<K extends string>(v: unknown, keys: readonly K[], where: string): Record<K, number> {
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  const out = {} as Record<K, number>;
  for (const k of keys) out[k] = positive(v[k], `${where}.${k}`);
  return out;
}

/** Validates a parsed price file; throws naming the first field that is wrong. */
export function parsePriceFile(v: unknown, where = 'price file'): PriceFile {
  if (!isRecord(v)) throw new Error(`${where} must be a JSON object`);
  if (v.currency !== 'USD') throw new Error(`${where}.currency must be 'USD'`);
  if (!isRecord(v.prices) || Object.keys(v.prices).length === 0)
    throw new Error(`${where}.prices must be a non-empty object`);
  const prices: Record<string, PriceEntry> = {};
  for (const [k, p] of Object.entries(v.prices)) prices[k] = entry(p, `${where}.prices.${k}`);
  if (!isRecord(v.metering)) throw new Error(`${where}.metering must be an object`);
  const ddb = v.metering.dynamodb;
  const dsql = v.metering.dsql;
  const dynamodb: DynamoDbMetering = {
    ...numbers(
      ddb,
      ['readUnitBytes', 'writeUnitBytes', 'eventuallyConsistentReadFactor', 'transactionalFactor'] as const,
      `${where}.metering.dynamodb`,
    ),
    source: source(isRecord(ddb) ? ddb.source : undefined, `${where}.metering.dynamodb.source`),
    read: date(isRecord(ddb) ? ddb.read : undefined, `${where}.metering.dynamodb.read`),
  };
  const dsqlMetering: DsqlMetering = {
    ...numbers(
      dsql,
      [
        'computeDpuPerSecond',
        'writeDpuPerByte',
        'readDpuPerByte',
        'rowMinBytes',
        'writeTransactionMinBytes',
        'readTransactionMinBytes',
      ] as const,
      `${where}.metering.dsql`,
    ),
    source: source(isRecord(dsql) ? dsql.source : undefined, `${where}.metering.dsql.source`),
    read: date(isRecord(dsql) ? dsql.read : undefined, `${where}.metering.dsql.read`),
  };
  if (!Array.isArray(v.separate)) throw new Error(`${where}.separate must be an array`);
  const separate = v.separate.map((s, i): SeparateLine => {
    const w = `${where}.separate[${i}]`;
    if (!isRecord(s)) throw new Error(`${w} must be an object`);
    const free: Record<string, number> = {};
    if (!isRecord(s.freeMonthly)) throw new Error(`${w}.freeMonthly must be an object`);
    for (const [k, n] of Object.entries(s.freeMonthly)) {
      if (!(k in prices)) throw new Error(`${w}.freeMonthly.${k} names no price`);
      free[k] = positive(n, `${w}.freeMonthly.${k}`);
    }
    return {
      label: text(s.label, `${w}.label`),
      what: text(s.what, `${w}.what`),
      source: source(s.source, `${w}.source`),
      read: date(s.read, `${w}.read`),
      freeMonthly: free,
    };
  });
  return {
    region: text(v.region, `${where}.region`),
    currency: 'USD',
    read: date(v.read, `${where}.read`),
    ...(typeof v.note === 'string' ? { note: v.note } : {}),
    prices,
    metering: { dynamodb, dsql: dsqlMetering },
    separate,
  };
}

/** Reads and validates a price file; the error names the file and the field. */
export function loadPriceFile(path: string = DEFAULT_PRICE_FILE): PriceFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read price file ${path}: ${(e as Error).message}`);
  }
  return { ...parsePriceFile(raw, basename(path)), file: path };
}

/** How a report names its prices: file, region and the date they were read. */
export function priceFileLabel(p: PriceFile): string {
  return `${p.file === undefined ? '(inline prices)' : basename(p.file)} (${p.region}, read ${p.read})`;
}
