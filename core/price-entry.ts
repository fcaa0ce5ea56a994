/**
 * One price, one metering rule set and one separate line (free tier, storage, fixed plan) as the
 * price files write them, and their validators: core/prices/<region>.json (Lambda and API
 * Gateway) and each target's prices.json (its own units) share them. Each validator throws
 * naming the field that is wrong.
 */
import { isRecord } from './timing.mjs';

export type CostGroup = 'lambda' | 'api' | 'database';
export const COST_GROUPS: readonly CostGroup[] = ['lambda', 'api', 'database'];

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

/** A target's documented rules that turn what a call did into billed units (bytes per unit, floors). */
export interface Metering {
  readonly rules: Readonly<Record<string, number>>;
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

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function text(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.trim() === '') throw new Error(`${where} must be a non-empty string`);
  return v;
}

export function date(v: unknown, where: string): string {
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

export function parsePriceEntry(v: unknown, where: string): PriceEntry {
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  const group = v.group;
  if (typeof group !== 'string' || !COST_GROUPS.includes(group as CostGroup)) {
    throw new Error(`${where}.group must be one of ${COST_GROUPS.join(', ')}`);
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

/** Metering rules: every field but source and read a number > 0, and each of `required` present. */
export function parseMetering(v: unknown, required: readonly string[], where: string): Metering {
  if (!isRecord(v)) throw new Error(`${where} must be an object`);
  const rules: Record<string, number> = {};
  for (const [k, n] of Object.entries(v))
    if (k !== 'source' && k !== 'read') rules[k] = positive(n, `${where}.${k}`);
  for (const k of required) if (!(k in rules)) throw new Error(`${where}.${k} must be a number > 0`);
  return { rules, source: source(v.source, `${where}.source`), read: date(v.read, `${where}.read`) };
}

/** A line that never enters a per-request figure; its free units must name a price in `known`. */
export function parseSeparateLine(s: unknown, known: (key: string) => boolean, w: string): SeparateLine {
  if (!isRecord(s)) throw new Error(`${w} must be an object`);
  const free: Record<string, number> = {};
  if (!isRecord(s.freeMonthly)) throw new Error(`${w}.freeMonthly must be an object`);
  for (const [k, n] of Object.entries(s.freeMonthly)) {
    if (!known(k)) throw new Error(`${w}.freeMonthly.${k} names no price`);
    free[k] = positive(n, `${w}.freeMonthly.${k}`);
  }
  return {
    label: text(s.label, `${w}.label`),
    what: text(s.what, `${w}.what`),
    source: source(s.source, `${w}.source`),
    read: date(s.read, `${w}.read`),
    freeMonthly: free,
  };
}
