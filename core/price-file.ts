/**
 * The prices a run is billed at: one core file per region (core/prices/<region>.json: Lambda,
 * API Gateway and Managed Instances' Lambda-side prices, each with its unit, its source and the
 * date it was read, and the lines that never enter a per-request figure), joined to every
 * registered target's prices for that region (core/cost-registry.ts). A price that could not be
 * verified is null with the reason, never a guess; so is a registered unit its target gives no
 * price for in the region, the reason naming the target, the unit and the region.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RegisteredCost, registeredCosts } from './cost-registry';
import {
  type CostGroup,
  date,
  type Metering,
  type PriceEntry,
  parsePriceEntry,
  parseSeparateLine,
  type SeparateLine,
  text,
} from './price-entry';
import { type BilledQuantity, isRecord } from './timing.mjs';

export type { CostGroup, Metering, PriceEntry, SeparateLine };

/** A target's meter with its region's rules in hand. */
export interface BoundMeter {
  readonly target: string;
  readonly raw: readonly string[];
  bill(raw: ReadonlyMap<string, number>): readonly BilledQuantity[];
}

export interface PriceFile {
  readonly region: string;
  readonly currency: 'USD';
  readonly read: string;
  readonly note?: string;
  /** Every price: the core file's and each registered target's (a key is `<target>.<unit>`). */
  readonly prices: Readonly<Record<string, PriceEntry>>;
  /** Each registered target's metering rules, by target. */
  readonly metering: Readonly<Record<string, Metering>>;
  /** The registered targets' meters: raw quantities in a response -> billed units. */
  readonly meters: readonly BoundMeter[];
  /** Which target bills each of its units: price key -> target. */
  readonly owners: Readonly<Record<string, string>>;
  readonly separate: readonly SeparateLine[];
  /** Where it was read from (set by loadPriceFile, not part of the file). */
  readonly file?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
/** The folder of the dated core price files. */
export const PRICES_DIR = join(here, 'prices');
/** The price file every report uses unless `--prices FILE` says otherwise. */
export const DEFAULT_PRICE_FILE = join(PRICES_DIR, 'us-east-1.json');

/**
 * Validates a parsed core price file and joins the targets' prices for its region; throws naming
 * the first field that is wrong.
 */
export function parsePriceFile(
  v: unknown,
  where = 'price file',
  costs: readonly RegisteredCost[] = registeredCosts(),
): PriceFile {
  if (!isRecord(v)) throw new Error(`${where} must be a JSON object`);
  if (v.currency !== 'USD') throw new Error(`${where}.currency must be 'USD'`);
  if (!isRecord(v.prices) || Object.keys(v.prices).length === 0)
    throw new Error(`${where}.prices must be a non-empty object`);
  const prices: Record<string, PriceEntry> = {};
  for (const [k, p] of Object.entries(v.prices)) prices[k] = parsePriceEntry(p, `${where}.prices.${k}`);
  if (!Array.isArray(v.separate)) throw new Error(`${where}.separate must be an array`);
  const separate = v.separate.map((s, i) =>
    parseSeparateLine(s, (k) => k in prices, `${where}.separate[${i}]`),
  );
  const core: PriceFile = {
    region: text(v.region, `${where}.region`),
    currency: 'USD',
    read: date(v.read, `${where}.read`),
    ...(typeof v.note === 'string' ? { note: v.note } : {}),
    prices,
    metering: {},
    meters: [],
    owners: {},
    separate,
  };
  return withTargetPrices(core, costs);
}

/**
 * The core prices joined to each target's for the same region. A unit its target gives no price
 * for here is in the file as unpriced (usd null) with the reason, so a run bills it as unknown
 * instead of failing; a unit the core file prices too keeps the core file's price (a file of
 * one's own given with --prices fills or overrides a target's).
 */
export function withTargetPrices(core: PriceFile, costs: readonly RegisteredCost[]): PriceFile {
  const prices: Record<string, PriceEntry> = { ...core.prices };
  const metering: Record<string, Metering> = { ...core.metering };
  const owners: Record<string, string> = { ...core.owners };
  const meters: BoundMeter[] = [...core.meters];
  const separate: SeparateLine[] = [...core.separate];
  for (const c of costs) {
    const here = c.regions[core.region];
    for (const [key, unit] of Object.entries(c.units)) {
      // A price the core file gives for a target's unit wins: `--prices FILE` fills or overrides one.
      prices[key] = core.prices[key] ??
        here?.prices[key] ?? {
          group: 'database',
          usd: null,
          per: 1,
          unit,
          source: c.pricesFile,
          read: core.read,
          unverified: `target ${c.target} gives no price for unit ${key} in ${core.region} (${c.pricesFile})`,
        };
      owners[key] = c.target;
    }
    if (here) separate.push(...here.separate);
    if (c.metering) metering[c.target] = c.metering;
    const { meter } = c;
    if (meter) {
      const rules = c.metering?.rules ?? {};
      meters.push({ target: c.target, raw: meter.raw, bill: (raw) => meter.bill(raw, rules) });
    }
  }
  return { ...core, prices, metering, owners, meters, separate };
}

/** Reads and validates a core price file with the registered targets' prices; the error names the file and the field. */
export function loadPriceFile(
  path: string = DEFAULT_PRICE_FILE,
  costs: readonly RegisteredCost[] = registeredCosts(),
): PriceFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read price file ${path}: ${(e as Error).message}`);
  }
  return { ...parsePriceFile(raw, basename(path), costs), file: path };
}

/** How a report names its prices: file, region and the date they were read. */
export function priceFileLabel(p: PriceFile): string {
  return `${p.file === undefined ? '(inline prices)' : basename(p.file)} (${p.region}, read ${p.read})`;
}
