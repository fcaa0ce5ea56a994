/**
 * What each target brings to the cost model: the units it bills, how its raw metered quantities
 * become billed ones, and its prices per region from a file of its own. A target registers its
 * part here (targets/registry.ts does, from a TargetModule's `cost`); core/price-file.ts joins
 * every registered part to the Lambda and API Gateway prices of a region. A part's prices are
 * checked when it registers, so a bad file names its target before any run starts.
 */
import {
  type Metering,
  type PriceEntry,
  parseMetering,
  parsePriceEntry,
  parseSeparateLine,
  type SeparateLine,
} from './price-entry';
import { type BilledQuantity, isRecord } from './timing.mjs';

/** Raw quantities a target's responses carry (facts, not billed units) and the rule that bills them. */
export interface TargetMeter {
  /** The raw keys its client records in the timing block's `billed`. */
  readonly raw: readonly string[];
  /** One response's raw quantities -> its billed units, by the target's metering rules. */
  bill(raw: ReadonlyMap<string, number>, rules: Readonly<Record<string, number>>): readonly BilledQuantity[];
}

/** What a phase was, for units billed by time rather than by request. */
export interface PhaseFacts {
  /** The phase's wall time, s. */
  readonly wallS: number;
  /** The context flags the stacks were synthesized with (a target's own flags among them). */
  readonly context: (key: string) => unknown;
}

/** A target's cost part: what its folder's cost.ts exports. */
export interface TargetCost {
  /**
   * The units it bills: price key -> what the Cost line calls them. Each key is
   * `<target>.<unit>`, so no target prices another's unit.
   */
  readonly units: Readonly<Record<string, string>>;
  /** The metering rules its prices file must give (`metering`), when it has rules. */
  readonly meteringRules?: readonly string[];
  /** How its raw quantities become billed units; absent when its client records billed units. */
  readonly meter?: TargetMeter;
  /**
   * Units it bills for a phase's time whether requests come or not (capacity-hours), from the
   * phase's facts and its metering rules. @default - it bills by request only
   */
  readonly capacity?: (
    phase: PhaseFacts,
    rules: Readonly<Record<string, number>>,
  ) => readonly BilledQuantity[];
  /** Its prices file as imported: `{ currency, metering?, regions: { <region>: { prices, separate } } }`. */
  readonly prices: unknown;
  /** That file, from the project root, for messages. */
  readonly pricesFile: string;
}

export interface RegionPrices {
  readonly prices: Readonly<Record<string, PriceEntry>>;
  readonly separate: readonly SeparateLine[];
}

/** A registered part, its prices checked. */
export interface RegisteredCost {
  readonly target: string;
  readonly units: Readonly<Record<string, string>>;
  readonly pricesFile: string;
  readonly metering?: Metering;
  readonly meter?: TargetMeter;
  readonly capacity?: TargetCost['capacity'];
  readonly regions: Readonly<Record<string, RegionPrices>>;
}

const CORE_GROUPS = ['lambda', 'api'];

/** Checks a target's part and its prices file; throws naming the target, the file and the field. */
export function parseTargetCost(target: string, cost: TargetCost): RegisteredCost {
  const where = `target ${target}: ${cost.pricesFile}`;
  // Their keys are the core file's own.
  if (CORE_GROUPS.includes(target))
    throw new Error(`target ${target}: a target named ${target} cannot bill units`);
  const units = Object.keys(cost.units);
  if (units.length === 0) throw new Error(`target ${target}: cost.units must name at least one unit`);
  for (const u of units)
    if (!u.startsWith(`${target}.`) || u.length === target.length + 1)
      throw new Error(`target ${target}: unit '${u}' must be '${target}.<unit>'`);
  const v = cost.prices;
  if (!isRecord(v)) throw new Error(`${where} must be a JSON object`);
  if (v.currency !== 'USD') throw new Error(`${where}: currency must be 'USD'`);
  const rules = cost.meteringRules ?? [];
  const metering =
    v.metering === undefined && rules.length === 0
      ? undefined
      : parseMetering(v.metering, rules, `${where}: metering`);
  if (!isRecord(v.regions)) throw new Error(`${where}: regions must be an object of region -> prices`);
  const regions: Record<string, RegionPrices> = {};
  for (const [region, r] of Object.entries(v.regions)) {
    const w = `${where}: regions.${region}`;
    if (!isRecord(r) || !isRecord(r.prices)) throw new Error(`${w}.prices must be an object`);
    const prices: Record<string, PriceEntry> = {};
    for (const [k, p] of Object.entries(r.prices)) {
      if (!units.includes(k))
        throw new Error(`${w}.prices.${k} is not one of its units (${units.join(', ')})`);
      const e = parsePriceEntry(p, `${w}.prices.${k}`);
      // A target's units are its database's: they never move the Lambda or API columns.
      if (e.group !== 'database') throw new Error(`${w}.prices.${k}.group must be 'database'`);
      prices[k] = e;
    }
    const separate = r.separate ?? [];
    if (!Array.isArray(separate)) throw new Error(`${w}.separate must be an array`);
    regions[region] = {
      prices,
      separate: separate.map((s, i) => parseSeparateLine(s, (k) => units.includes(k), `${w}.separate[${i}]`)),
    };
  }
  return {
    target,
    units: cost.units,
    pricesFile: cost.pricesFile,
    ...(metering === undefined ? {} : { metering }),
    ...(cost.meter === undefined ? {} : { meter: cost.meter }),
    ...(cost.capacity === undefined ? {} : { capacity: cost.capacity }),
    regions,
  };
}

const COSTS = new Map<string, RegisteredCost>();

/** Adds a target's part; a second part for the same target is refused. */
export function registerTargetCost(target: string, cost: TargetCost): void {
  if (COSTS.has(target)) throw new Error(`target ${target} already has a cost registered`);
  const parsed = parseTargetCost(target, cost);
  COSTS.set(target, parsed);
}

/** Every registered part, in the order they came. */
export const registeredCosts = (): readonly RegisteredCost[] => [...COSTS.values()];

export const hasTargetCost = (target: string): boolean => COSTS.has(target);

/** A phase's time-billed units of `target` (none when its part bills by request only). */
export function capacityQuantities(target: string, phase: PhaseFacts): readonly BilledQuantity[] {
  const c = COSTS.get(target);
  return c?.capacity?.(phase, c.metering?.rules ?? {}) ?? [];
}
