/**
 * summary.json, defined once: the valibot schema is the file's format, the TypeScript types are
 * inferred from it (never written a second time), and `checkSummary` is the one validator the
 * writer (loadtest/load-phases.ts) and every reader (runs/summary-reader.ts) run it through.
 *
 * valibot over zod, TypeBox + Ajv and ArkType: measured on a real 20 KB summary.json, its
 * import + schema build + first validation costs ~5-10 ms against ~120 ms (zod), ~200 ms
 * (TypeBox compiled), ~200-550 ms (Ajv) and ~900 ms (ArkType), which a one-shot CLI pays on every
 * run; it installs 1.9 MB with no dependencies; and it infers the output type from the schema.
 *
 * Bump SUMMARY_VERSION when a field changes meaning or a reader starts to need a field an older
 * writer did not write: readers refuse any other version (runs/summary-reader.ts).
 */
import * as v from 'valibot';
import { UsageError } from '../core/errors';
import { UNIT_BASES } from '../core/timing.mjs';

/** The version this lab writes and the only one it reads. */
export const SUMMARY_VERSION = 1;

const num = v.number();
const nullableNum = v.nullable(num);
const readonlyArray = <const T extends v.GenericSchema>(item: T) => v.pipe(v.array(item), v.readonly());

const P50P99 = v.object({ p50: num, p99: num });
const P50Max = v.object({ p50: num, max: num });

/** Client time to first byte, ms (artillery's http.response_time). */
export const PercentilesSchema = v.object({ p50: num, p95: num, p99: num, max: num });

const UnitBasisSchema = v.picklist(UNIT_BASES);

const BilledQuantitySchema = v.object({ key: v.string(), quantity: num, basis: UnitBasisSchema });

const CostComponentSchema = v.object({
  key: v.string(),
  group: v.picklist(['lambda', 'api', 'database']),
  quantity: num,
  unit: v.string(),
  basis: UnitBasisSchema,
  usd: nullableNum,
  per: num,
  source: v.string(),
  totalUsd: nullableNum,
  usdPerMillionRequests: nullableNum,
  unverified: v.optional(v.string()),
});

/**
 * What provisioned concurrency cost while configured over the phase: reserved GB-s x its price.
 * Billed by the hour whether requests come or not, so it is its own line, never in $ per million.
 */
const ProvisionedIdleCostSchema = v.object({
  key: v.string(),
  concurrency: num,
  memoryMb: num,
  wallS: num,
  gbSeconds: num,
  /** Null when the price is unverified (see `unpriced`). */
  usd: nullableNum,
  usdPerHour: nullableNum,
  /** The price file's reason when the price is null. */
  unpriced: v.optional(v.string()),
});

/** The cost block of one row (runs/run-cost.ts writes it). */
const RunCostSchema = v.object({
  /** Price file, region and the date its prices were read. */
  prices: v.string(),
  requests: num,
  invocations: num,
  /** The run's billed units: what the dollars are recomputed from. */
  units: readonlyArray(BilledQuantitySchema),
  components: readonlyArray(CostComponentSchema),
  perMillion: v.object({ lambda: num, api: num, database: num, total: num }),
  unpriced: readonlyArray(v.string()),
  /** $ per request over the invocations: each one's Lambda + API, plus the database mean. */
  perRequestUsd: v.nullable(P50P99),
  /** What the database units are: measured by the engine, computed by the rules, or modeled. */
  databaseBasis: v.nullable(UnitBasisSchema),
  /** Present when the function had provisioned concurrency > 0. */
  provisionedIdle: v.optional(ProvisionedIdleCostSchema),
});

/**
 * The phase after an idle gap (loadtest/load-phases.ts: warm-up, gap, phase). An environment
 * warm before the gap answers with coldStart false; if it opens a connection, its kept
 * connection did not survive the gap. With keep-alive off every call opens one.
 */
const AfterGapSchema = v.object({
  /** Seconds without traffic before the phase. */
  gapS: num,
  /** Calls that reached the database from environments warm before the gap (coldStart false). */
  warmCalls: num,
  /** Of those, the calls that opened a connection: environments whose connection did not survive. */
  firstCallsNewConnection: num,
  /** Database time of those calls, ms p50; null without any. */
  newConnectionDbMsP50: nullableNum,
  /** Database time of warm calls on a reused connection, ms p50; null without any. */
  reusedDbMsP50: nullableNum,
});

/** How the load was offered: an open loop (arrivals per second) or a closed loop (N workers). */
const LoadShapeEntries = {
  mode: v.picklist(['open', 'closed']),
  /** Workers of a closed loop; null for an open loop. */
  parallel: nullableNum,
  /** Arrivals per second of an open loop; null for a closed loop. */
  ratePerS: nullableNum,
};
export const LoadShapeSchema = v.object(LoadShapeEntries);

/** One row of the lab's result table: one target, keep-alive variant and phase. */
export const LabRowSchema = v.object({
  target: v.string(),
  keepAlive: v.string(),
  phase: v.string(),
  ...LoadShapeEntries,
  requests: num,
  errors: num,
  throughputPerSec: num,
  latencyMs: v.nullable(PercentilesSchema),
  dbMs: v.nullable(P50P99),
  /** requests or commands per database call: DynamoDB 1, QLDB 3-5 */
  dbRequests: v.nullable(P50Max),
  /** round trips per database call (see core/timing.mjs) */
  dbRoundTrips: v.nullable(P50Max),
  /** commands per call by name (runs/db-commands.ts); absent where no call named its commands */
  dbCommands: v.optional(
    v.object({
      /** calls that reached the database and said what they sent */
      calls: num,
      /** every distinct breakdown, most calls first */
      breakdowns: readonlyArray(v.object({ commands: v.record(v.string(), num), total: num, calls: num })),
    }),
  ),
  /** distinct execution environments that answered; null when no timing block named one */
  environments: nullableNum,
  /** the most requests in flight at once (each response's time minus its time to first byte) */
  maxInFlight: num,
  newConnectionShare: nullableNum,
  coldStarts: num,
  /** Init Duration p50 from the REPORT lines, which artillery does not see */
  initMsP50: nullableNum,
  /** Present when the phase followed an idle gap. */
  afterGap: v.optional(AfterGapSchema),
  /** The function memory setting the phase ran at, MB (local runs). */
  memoryMb: v.optional(num),
  /** How the lab gave the function its memory's CPU: the cgroup mechanism and vCPUs, or 'none'. Local runs. */
  cpu: v.optional(v.object({ mechanism: v.string(), vcpus: nullableNum })),
  /** Duration of warm invocations (no Init Duration) from the REPORT lines, ms. Local runs. */
  functionMs: v.optional(v.nullable(P50P99)),
  /** What the phase cost (runs/run-cost.ts); null when no REPORT line was seen. */
  cost: v.optional(v.nullable(RunCostSchema)),
  /**
   * The connections open at the target's database during the phase, counted where every function's
   * connection passes (the network model, local/network/delay-layer.ts). Local runs.
   */
  dbConnections: v.optional(
    v.object({
      /** the most open at once that carried the phase's requests */
      peak: num,
      /** the most open at once, idle ones other functions left included */
      peakAll: num,
      /** connections that carried the phase's requests */
      used: num,
      /** connections opened during the phase */
      opened: num,
    }),
  ),
});

/** A phase that produced no usable results, and why. */
export const FailedPhaseSchema = v.object({
  target: v.string(),
  keepAlive: v.string(),
  phase: v.string(),
  /** The memory setting of the phase, when the run compared sizes. */
  memoryMb: v.optional(num),
  reason: v.string(),
});

/** One target x keep-alive variant: its client and database latency per operation. */
const ComparisonCellSchema = v.object({
  target: v.string(),
  keepAlive: v.string(),
  phase: v.string(),
  clientP50Ms: num,
  clientP99Ms: num,
  dbP50Ms: nullableNum,
});

const RankedSchema = v.object({
  target: v.string(),
  keepAlive: v.string(),
  clientP50Ms: num,
  /** clientP50Ms over the fastest target's: 1 for the fastest. */
  ratio: num,
});

const OperationVerdictSchema = v.object({
  /** `get` for reads, `create` for writes. */
  phase: v.string(),
  /** Each target at its faster variant, fastest first. */
  ranking: readonlyArray(RankedSchema),
});

/** The run's answer across targets (runs/comparison.ts computes it from the rows). */
const TargetComparisonSchema = v.object({
  /** Which statistic ranks: always client p50 (ms), said in every line that uses it. */
  statistic: v.literal('client p50'),
  cells: readonlyArray(ComparisonCellSchema),
  reads: v.nullable(OperationVerdictSchema),
  writes: v.nullable(OperationVerdictSchema),
});

/**
 * The run's settings and what the lab reported about itself (url, durations, network profile,
 * memory model, host load...). Open-ended: the report reads the keys it knows and checks each.
 */
const LabBlockSchema = v.looseObject({ target: v.string() });

export const SummarySchema = v.object({
  version: v.literal(SUMMARY_VERSION),
  generatedAt: v.string(),
  lab: LabBlockSchema,
  runs: readonlyArray(LabRowSchema),
  failedPhases: readonlyArray(FailedPhaseSchema),
  /** Null when the run has nothing to compare (one row per target x variant x phase needed). */
  comparison: v.nullable(TargetComparisonSchema),
});

export type Percentiles = v.InferOutput<typeof PercentilesSchema>;
export type LoadShape = v.InferOutput<typeof LoadShapeSchema>;
export type AfterGap = v.InferOutput<typeof AfterGapSchema>;
export type RunCost = v.InferOutput<typeof RunCostSchema>;
export type ProvisionedIdleCost = v.InferOutput<typeof ProvisionedIdleCostSchema>;
export type LabRow = v.InferOutput<typeof LabRowSchema>;
export type FailedPhase = v.InferOutput<typeof FailedPhaseSchema>;
export type ComparisonCell = v.InferOutput<typeof ComparisonCellSchema>;
export type Ranked = v.InferOutput<typeof RankedSchema>;
export type OperationVerdict = v.InferOutput<typeof OperationVerdictSchema>;
export type TargetComparison = v.InferOutput<typeof TargetComparisonSchema>;
export type LabBlock = v.InferOutput<typeof LabBlockSchema>;
export type LoadSummary = v.InferOutput<typeof SummarySchema>;

/**
 * A summary.json that does not fit: another version (`found` is what the file said, undefined
 * without a version field) or a field of the wrong shape. A usage error: the message alone, exit 2.
 */
export class SummaryFormatError extends UsageError {
  constructor(
    message: string,
    readonly kind: 'version' | 'shape',
    readonly found?: unknown,
  ) {
    super(message);
    this.name = 'SummaryFormatError';
  }
}

/** The one-line refusal of a summary from another version, with what to do about it. */
export function versionMessage(where: string, found: unknown): string {
  const said =
    found === undefined
      ? 'has no version (written before summary.json had one)'
      : `is version ${JSON.stringify(found)}`;
  return `${where} ${said}; this lab reads version ${SUMMARY_VERSION}: rerun the load (npm run load) to write it again`;
}

/**
 * Validates a parsed summary.json: the version first (another version is refused with
 * versionMessage), then the shape, naming the first field that does not fit.
 */
export function checkSummary(json: unknown, where = 'summary.json'): LoadSummary {
  const found =
    typeof json === 'object' && json !== null ? (json as { version?: unknown }).version : undefined;
  if (found !== SUMMARY_VERSION) throw new SummaryFormatError(versionMessage(where, found), 'version', found);
  const result = v.safeParse(SummarySchema, json);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = v.getDotPath(issue) ?? '(top level)';
  throw new SummaryFormatError(
    `${where} does not fit version ${SUMMARY_VERSION}: ${path}: ${issue.message}`,
    'shape',
  );
}
