/**
 * A run's billed units and what they cost: Lambda's Billed Duration and memory from each
 * REPORT line (init included, as Lambda bills it since 2025-08-01), one request charge and one
 * API call per invocation, and the database units each response's timing block carries
 * (each target's own units, raw quantities billed by its meter: core/cost-registry.ts). A phase on Lambda
 * Managed Instances bills its instances' hours, the management fee and a request charge instead of
 * Billed Duration. summary.json keeps the units beside the dollars, so
 * `recomputeCost(summary cost block, price file)` gives every figure back.
 */
import { type BilledQuantity, type CostBreakdown, costOf, gbSeconds } from '../core/cost';
import { type BoundMeter, type PriceFile, priceFileLabel } from '../core/price-file';
import { reachedDatabase, type TimingLine, weakerBasis } from '../core/timing.mjs';
import type { ReportRecord } from './lambda-log-parser';
import type { ProvisionedIdleCost, RunCost } from './summary-schema';

// The cost block's types come from summary.json's schema (runs/summary-schema.ts).
export type { ProvisionedIdleCost, RunCost } from './summary-schema';

export type ApiKind = 'rest' | 'http';

export interface RunCostInput {
  /** The phase's REPORT lines (one per invocation), at the phase's memory. */
  readonly reports: readonly Pick<ReportRecord, 'billedDurationMs' | 'memorySizeMb'>[];
  /** The phase's timing lines (one per response). */
  readonly timings: readonly TimingLine[];
  readonly architecture: 'arm64' | 'x86_64';
  /** The lab deploys a REST API (lib/stacks/api-stack.ts). */
  readonly api: ApiKind;
  /** Provisioned concurrency configured on the phase's function, and for how long (the phase's wall time). */
  readonly provisioned?: { readonly concurrency: number; readonly wallS: number; readonly memoryMb: number };
  /**
   * The phase ran on Lambda Managed Instances: billed by its instances' hours, the management fee
   * on those hours and a request charge per invocation, never by GB-seconds.
   */
  readonly managedInstances?: ManagedInstancesPhase;
  /** The database's units billed by the phase's time (core/cost-registry.ts capacityQuantities). @default none */
  readonly capacity?: readonly BilledQuantity[];
}

export interface ManagedInstancesPhase {
  /** The capacity provider's instance type, e.g. m7g.large (a key of the price file's instance prices). */
  readonly instanceType: string;
  /** Instances running during the phase (the capacity provider keeps them whether or not requests come). */
  readonly instances: number;
  /** How long they ran for this phase, s. */
  readonly wallS: number;
}

/** The price keys of a Managed Instances phase (core/prices/<region>.json). */
export const managedInstancesKeys = (instanceType: string) =>
  ({
    requests: 'lambda.managedInstances.requests',
    instanceHours: `lambda.managedInstances.instanceHours.${instanceType}`,
    managementFee: `lambda.managedInstances.managementFee.${instanceType}`,
  }) as const;

/**
 * The Lambda side of a Managed Instances phase: a request charge per invocation, and the
 * instances' hours twice, once at the EC2 price and once at the management fee. Duration is not
 * billed; the instances are, whether busy or idle.
 */
export function managedInstancesQuantities(
  invocations: number,
  phase: ManagedInstancesPhase,
): BilledQuantity[] {
  if (
    !(
      Number.isInteger(phase.instances) &&
      phase.instances > 0 &&
      Number.isFinite(phase.wallS) &&
      phase.wallS >= 0
    )
  )
    throw new RangeError(
      `managed instances: instances must be an integer > 0 and wallS finite and >= 0, got ${phase.instances}, ${phase.wallS}`,
    );
  const keys = managedInstancesKeys(phase.instanceType);
  const hours = (phase.instances * phase.wallS) / 3600;
  return [
    { key: keys.requests, quantity: invocations, basis: 'measured' },
    { key: keys.instanceHours, quantity: hours, basis: 'measured' },
    { key: keys.managementFee, quantity: hours, basis: 'measured' },
  ];
}

/**
 * The database quantities of one response: billed units as its client recorded them, and raw
 * quantities turned into billed units by the meter of the target that records them.
 */
export function databaseQuantities(line: TimingLine, prices: PriceFile): BilledQuantity[] {
  const billed = line.timing?.billed ?? [];
  const out: BilledQuantity[] = [];
  const raw = new Map<BoundMeter, Map<string, number>>();
  for (const b of billed) {
    const meter = prices.meters.find((m) => m.raw.includes(b.key));
    if (meter === undefined) out.push(b);
    else raw.set(meter, (raw.get(meter) ?? new Map()).set(b.key, b.quantity));
  }
  for (const [meter, quantities] of raw) out.push(...meter.bill(quantities));
  return out;
}

/**
 * The prices with an unpriced entry for each database unit no registered target declares (a
 * target that bills without a cost part): its row says the price is unknown instead of failing.
 */
function withUndeclared(prices: PriceFile, units: readonly BilledQuantity[]): PriceFile {
  const missing = units.filter((u) => !(u.key in prices.prices));
  if (missing.length === 0) return prices;
  const added = { ...prices.prices };
  for (const { key } of missing)
    added[key] = {
      group: 'database',
      usd: null,
      per: 1,
      unit: key,
      source: priceFileLabel(prices),
      read: prices.read,
      unverified: `no registered target declares unit ${key} (its TargetModule's cost), so ${prices.region} has no price for it`,
    };
  return { ...prices, prices: added };
}

/**
 * Billed Duration's price keys for a phase: an invocation a provisioned-concurrency environment
 * served bills its duration at the provisioned duration price, one beyond the configured
 * concurrency at the on-demand price (https://aws.amazon.com/lambda/pricing/, Provisioned
 * Concurrency pricing). Each response's timing block says which environment served it; REPORT
 * lines do not, so a phase that mixed the two splits its GB-s by that share (modeled).
 */
function durationSplit(
  timings: readonly TimingLine[],
  architecture: 'arm64' | 'x86_64',
): (gbs: number) => BilledQuantity[] {
  const onDemand = `lambda.gbSeconds.${architecture}`;
  const provisioned = `lambda.provisionedDurationGbSeconds.${architecture}`;
  const served = timings.filter((t) => t.timing !== null);
  const share =
    served.length === 0
      ? 0
      : served.filter((t) => t.timing?.initType === 'provisioned-concurrency').length / served.length;
  if (share === 0) return (gbs) => [{ key: onDemand, quantity: gbs, basis: 'measured' }];
  if (share === 1) return (gbs) => [{ key: provisioned, quantity: gbs, basis: 'measured' }];
  return (gbs) => [
    { key: provisioned, quantity: gbs * share, basis: 'modeled' },
    { key: onDemand, quantity: gbs * (1 - share), basis: 'modeled' },
  ];
}

function percentile(sorted: readonly number[], p: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

/** The run's cost block. Null when the phase left no REPORT line (nothing to bill Lambda on). */
export function runCost(input: RunCostInput, filePrices: PriceFile): RunCost | null {
  const invocations = input.reports.length;
  if (invocations === 0) return null;
  const apiKey = `api.${input.api}.requests`;
  const perInvocation = input.reports.map((r) => gbSeconds(r.billedDurationMs, r.memorySizeMb));
  const db: BilledQuantity[] = [];
  for (const line of input.timings) {
    if (reachedDatabase(line.status, line.timing)) db.push(...databaseQuantities(line, filePrices));
  }
  db.push(...(input.capacity ?? []));
  const prices = withUndeclared(filePrices, db);
  const mi = input.managedInstances;
  const duration = durationSplit(input.timings, input.architecture);
  const lambdaUnits: BilledQuantity[] =
    mi === undefined
      ? [
          { key: 'lambda.requests', quantity: invocations, basis: 'measured' },
          ...duration(perInvocation.reduce((s, g) => s + g, 0)),
        ]
      : managedInstancesQuantities(invocations, mi);
  const units: BilledQuantity[] = [
    ...lambdaUnits,
    { key: apiKey, quantity: invocations, basis: 'measured' },
    ...db,
  ];
  const breakdown = costOf(units, invocations, prices);
  // One invocation's Lambda + API cost, with the run's database cost per request beside it. On
  // Managed Instances every invocation costs the same: the instances' hours shared out evenly.
  const dbPerRequest = breakdown.perMillion.database / 1e6;
  const each = (
    mi === undefined
      ? perInvocation.map(
          (g) =>
            costOf(
              [
                { key: 'lambda.requests', quantity: 1, basis: 'measured' },
                ...duration(g),
                { key: apiKey, quantity: 1, basis: 'measured' },
              ],
              1,
              prices,
            ).perMillion.total /
              1e6 +
            dbPerRequest,
        )
      : perInvocation.map(() => breakdown.perMillion.total / 1e6)
  ).sort((a, b) => a - b);
  const merged = breakdown.components.filter((c) => c.group === 'database');
  const databaseBasis = merged.length === 0 ? null : merged.map((c) => c.basis).reduce(weakerBasis);
  return {
    prices: priceFileLabel(prices),
    requests: input.timings.length,
    invocations,
    units: breakdown.components.map((c) => ({ key: c.key, quantity: c.quantity, basis: c.basis })),
    components: breakdown.components,
    perMillion: breakdown.perMillion,
    unpriced: breakdown.unpriced,
    perRequestUsd: { p50: percentile(each, 50), p99: percentile(each, 99) },
    databaseBasis,
    ...(mi === undefined && input.provisioned !== undefined && input.provisioned.concurrency > 0
      ? {
          provisionedIdle: provisionedIdleCost(
            input.provisioned.concurrency,
            input.provisioned.memoryMb,
            input.provisioned.wallS,
            input.architecture,
            prices,
          ),
        }
      : {}),
  };
}

/** The reserved GB-s of `concurrency` environments over `wallS` seconds, and their price. */
export function provisionedIdleCost(
  concurrency: number,
  memoryMb: number,
  wallS: number,
  architecture: 'arm64' | 'x86_64',
  prices: PriceFile,
): ProvisionedIdleCost {
  const key = `lambda.provisionedGbSeconds.${architecture}`;
  const gbs = concurrency * gbSeconds(wallS * 1000, memoryMb);
  const usd = costOf([{ key, quantity: gbs, basis: 'measured' }], 1, prices).components[0].totalUsd;
  const reason = prices.prices[key]?.unverified;
  return {
    key,
    concurrency,
    memoryMb,
    wallS,
    gbSeconds: Math.round(gbs * 1e6) / 1e6,
    usd,
    usdPerHour: provisionedIdleUsdPerHour(concurrency, memoryMb, architecture, prices),
    ...(usd === null ? { unpriced: reason ?? 'no verified price' } : {}),
  };
}

/** Recomputes a summary's cost block from its recorded units and a price file: the same figures. */
export function recomputeCost(
  cost: Pick<RunCost, 'units' | 'invocations' | 'components'>,
  prices: PriceFile,
): CostBreakdown {
  const database = new Set(cost.components.filter((c) => c.group === 'database').map((c) => c.key));
  return costOf(
    cost.units,
    cost.invocations,
    withUndeclared(
      prices,
      cost.units.filter((u) => database.has(u.key)),
    ),
  );
}

/** What provisioned concurrency costs while idle, $ per hour: reserved GB-s x the configured price. */
export function provisionedIdleUsdPerHour(
  concurrency: number,
  memoryMb: number,
  architecture: 'arm64' | 'x86_64',
  prices: PriceFile,
): number | null {
  const key = `lambda.provisionedGbSeconds.${architecture}`;
  const c = costOf(
    [{ key, quantity: concurrency * gbSeconds(3_600_000, memoryMb), basis: 'measured' }],
    1,
    prices,
  );
  return c.components[0].totalUsd;
}
