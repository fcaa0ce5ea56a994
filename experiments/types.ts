/**
 * What an experiment is: the article it reproduces, the load steps it runs (each one
 * `runLoad`), and how it reads its steps' results into "Article vs this run" rows. A
 * definition imports nothing heavy, so `npm run experiment -- --list` loads no SDK, engine
 * or renderer: the results it reads arrive through the StepView interface.
 */
import { type KeepAliveVariant, type Operation, servesOperation, type Target } from '../core/lab-functions';
import { WARMUP_S } from '../loadtest/load-defaults';
import type { HistogramOperation } from '../report/article-figures';
import type {
  ExperimentRow,
  ExperimentTable,
  GroupReport,
  Layer,
  NotReproduced,
} from '../report/report-model';
import type { Ladder } from '../runs/latency-histogram';
import type { LabRow } from '../runs/results';

/** One load run of an experiment: its results go to outDir/steps/<name>/. */
export interface StepPlan {
  /** kebab-case, unique within the experiment */
  readonly name: string;
  readonly description: string;
  readonly targets: readonly Target[];
  readonly variants: readonly KeepAliveVariant[];
  readonly operations: readonly Operation[];
  readonly durationS: number;
  /** Open loop arrivals per second, when parallel is not set. @default 10 */
  readonly ratePerS?: number;
  /** Closed loop: this many workers back to back. @default open loop */
  readonly parallel?: number;
  /**
   * The targets' phases side by side, each target's in order (loadtest/load-phases.ts): for a
   * light, sparse load whose targets share nothing but the host. @default one after another
   */
  readonly targetsAtOnce?: boolean;
  /**
   * Open loop in bursts of activeS with pauseS of no traffic between (a sparse site), for the
   * phases of `operations` (@default every phase). @default steady
   */
  readonly bursts?: {
    readonly activeS: number;
    readonly pauseS: number;
    readonly operations?: readonly Operation[];
  };
  /** Wait before each phase after the first. @default 0 */
  readonly idleGapS?: number;
  /** The uncounted warm-up of a phase before its gap, s; 0: none. @default 2 */
  readonly warmupS?: number;
  /** Persons seeded (uncounted) before the phases; get, overwrite, update pick among them at random. @default 0 */
  readonly seedRecords?: number;
  /**
   * Local lab only: the news site's stories written straight into each target's engine before
   * the phases (uncounted, loadtest/seed-stories.ts), every one with a random view count. @default 0
   */
  readonly seedStories?: number;
  /** Local lab only: the most environments per function, unless --max-envs says. @default the lab's (10) */
  readonly maxEnvironments?: number;
  /** Local lab only: engines close connections idle this long. @default the lab's (60 s) */
  readonly idleTimeoutS?: number;
  /** Local lab only: the host ends an on-demand environment idle this long, as Lambda reclaims idle ones. @default never */
  readonly reclaimIdleS?: number;
  /** Function memory, MB (local lab: set on the host; --memory overrides it). @default the template's */
  readonly memoryMb?: number;
  /** Local lab only: more context flags for the synth. @default none */
  readonly context?: Readonly<Record<string, string>>;
  /** Local lab only: this network profile, whatever --profile says. @default --profile's */
  readonly profile?: string;
  /**
   * The step runs under today's conditions only, with why (a target the article never had has
   * no article conditions): one run serves both columns. @default under both where they differ
   */
  readonly todayOnly?: string;
  /**
   * Targets left out of the step's run under today's conditions, with why (a service that is
   * gone has no today): their rows' today column is empty. @default none
   */
  readonly notToday?: { readonly targets: readonly Target[]; readonly reason: string };
}

export interface PlanContext {
  readonly quick: boolean;
  readonly where: 'local' | 'aws';
  /** The targets the lab has (TARGETS), narrowed by --targets. */
  readonly targets: readonly Target[];
  /** --duration: every phase this long instead of the experiment's own. @default the experiment's */
  readonly durationS?: number;
}

/** A handler-timed call that reached the database (timings.jsonl, validation failures left out). */
export interface Call {
  /** epoch ms when the response was processed */
  readonly at: number;
  readonly dbMs: number;
  /** Artillery's time to first byte; null when it had none */
  readonly clientMs: number | null;
  readonly newConnection: boolean;
  readonly coldStart: boolean;
  readonly initType: string;
  readonly dbRequests: number;
  /** round trips the call waited for; null in timings written before it existed */
  readonly dbRoundTrips: number | null;
  /** the execution environment that answered (its log stream); null before it existed */
  readonly environment: string | null;
}

export interface CallFilter {
  readonly target: string;
  readonly variant?: KeepAliveVariant;
  readonly phase?: Operation;
  readonly coldStart?: boolean;
  readonly newConnection?: boolean;
  /** The calls of the phase's uncounted warm-up before its gap (warmup-timings.jsonl) instead of its own. @default false */
  readonly warmUp?: boolean;
}

/** One finished step, as a definition reads it. */
export interface StepView {
  readonly plan: StepPlan;
  readonly wallS: number;
  /** summary.json's rows */
  readonly rows: readonly LabRow[];
  /** summary.json's lab block (settings, bundles, concurrency); null without a report */
  readonly lab: Readonly<Record<string, unknown>> | null;
  /** the step's calls in arrival order */
  calls(filter: CallFilter): readonly Call[];
  /** HDR ladder (runs/latency-histogram) of some values; null without any */
  ladder(values: readonly number[]): Ladder | null;
  /** REPORT Duration of each invocation of the phase's function, in log order (local runs); [] without a log */
  reportDurations(target: string, variant: KeepAliveVariant, phase: Operation): readonly number[];
  /** The time of each call the phase's function made at init (its prewarm line), in log order, ms; [] without one */
  initCalls?(target: string, variant: KeepAliveVariant, phase: Operation): readonly number[];
  /** HDR values at these percentiles (87.5, 99.21875, ...); [] without any value */
  rungs(values: readonly number[], percentiles: readonly number[]): number[];
  /** a layer's ladder from the step's report (function = REPORT Duration); null without it */
  layer(target: string, variant: KeepAliveVariant, phase: Operation, layer: Layer): Ladder | null;
  row(target: string, variant: KeepAliveVariant, phase: Operation): LabRow | undefined;
  /** the step report's group (cold and warm Duration from the REPORT lines, ...) */
  group(target: string, variant: KeepAliveVariant, phase: Operation): GroupReport | undefined;
}

/** One local Power Tuning run of an experiment (tune/local-tune.ts): its file goes to outDir/steps/<name>/. */
export interface TuningPlan {
  /** kebab-case, unique within the experiment */
  readonly name: string;
  readonly description: string;
  /** a function key, e.g. `qldb-get` */
  readonly function: string;
  readonly powerValues: readonly number[];
  readonly num: number;
  readonly strategy: 'cost' | 'speed' | 'balanced';
}

/** A finished tuning run, as a definition reads it: Power Tuning's output shape. */
export interface TuningView {
  readonly plan: TuningPlan;
  readonly wallS: number;
  readonly power: number;
  readonly cost: number;
  readonly duration: number;
  readonly stats: readonly {
    readonly value: number;
    readonly averageDuration?: number;
    readonly averagePrice?: number;
  }[];
}

/** Bundled against unbundled cold starts of one function (experiments/cold-start-compare.ts), local only. */
export interface ColdStartPlan {
  /** kebab-case, unique within the experiment: its files go to outDir/steps/<name>/ */
  readonly name: string;
  readonly description: string;
  /** a function key, e.g. `qldb-get` */
  readonly function: string;
  /** Cold starts of each build, alternating. */
  readonly runs: number;
}

/** A finished bundled-against-unbundled run, as a definition reads it. */
export interface ColdStartView {
  readonly plan: ColdStartPlan;
  readonly wallS: number;
  /** the memory setting both builds ran at, MB */
  readonly memoryMb: number;
  /** the Node the environments ran on */
  readonly node: string;
  /** how memory was applied: cgroups' mechanism, or why not */
  readonly memoryModel: string;
  /** the cold-start model's line (local/host/cold-start-model.ts): what Init Duration holds beyond the process */
  readonly coldStartModel: string;
  readonly bundled: { readonly zipBytes: number; readonly initMs: readonly number[] };
  readonly unbundled: {
    readonly zipBytes: number;
    readonly initMs: readonly number[];
    /** `name@version` of each package copied */
    readonly packages: readonly string[];
    readonly files: number;
    /** unzipped */
    readonly bytes: number;
  };
}

/** A client straight to the database, as the histogram article's Go client (experiments/direct-redis.ts), local only. */
export interface DirectRedisPlan {
  /** kebab-case, unique within the experiment */
  readonly name: string;
  readonly description: string;
  /** concurrent connections, one scenario at a time */
  readonly levels: readonly number[];
  readonly operations: readonly HistogramOperation[];
  readonly durationS: number;
  /** objects inserted (uncounted) before read, overwrite and update */
  readonly seedRecords: number;
  /** seeds the random picks */
  readonly seed: number;
}

export interface DirectScenarioResult {
  readonly op: HistogramOperation;
  readonly level: number;
  readonly count: number;
  readonly errors: number;
  readonly perMinute: number;
  /** ms at HISTOGRAM_PERCENTILES */
  readonly ladderMs: readonly number[];
}

export interface DirectRedisView {
  readonly plan: DirectRedisPlan;
  readonly wallS: number;
  /** the network profile the client went through */
  readonly profile: string;
  readonly results: readonly DirectScenarioResult[];
}

export interface ExperimentOutcome {
  readonly rows: readonly ExperimentRow[];
  /** the article's figures no row reproduces yet, with why: the scorecard lists them */
  readonly notReproduced?: readonly NotReproduced[];
  readonly tables?: readonly ExperimentTable[];
}

export interface ExperimentDefinition {
  /** kebab-case: `npm run experiment -- NAME` */
  readonly name: string;
  /** the seed file of the article it reproduces */
  readonly article: string;
  readonly title: string;
  /** one line: what it runs */
  readonly summary: string;
  /** The targets the article compared or this experiment adds (dsql wherever targets are compared). */
  readonly articleTargets: readonly string[];
  readonly plan: (ctx: PlanContext) => StepPlan[];
  /** Local Power Tuning runs, after the load steps (the local lab only). @default none */
  readonly tunings?: (ctx: PlanContext) => TuningPlan[];
  /** Bundled against unbundled cold starts, after the load steps (the local lab only). @default none */
  readonly coldStarts?: (ctx: PlanContext) => ColdStartPlan[];
  /** Clients straight to the database, after the load steps (the local lab only). @default none */
  readonly directs?: (ctx: PlanContext) => DirectRedisPlan[];
  /** The "Article vs this run" rows, from the finished steps and side runs (by name). */
  readonly rows: (
    steps: ReadonlyMap<string, StepView>,
    ctx: PlanContext,
    tunings?: ReadonlyMap<string, TuningView>,
    coldStarts?: ReadonlyMap<string, ColdStartView>,
    directs?: ReadonlyMap<string, DirectRedisView>,
  ) => ExperimentOutcome;
}

// ---------------------------------------------------------------- wall time, before running

/** Measured on this machine: starting the lab (synth cached) and one phase's Artillery start, stop and read. */
export const LAB_START_S = 4;
export const PHASE_OVERHEAD_S = 2.2;
/** Each step's own report (plots) and the combined report. */
export const REPORT_S = 2;
/** Measured on this machine (loaded): stories a second into dynalite, 25 a BatchWriteItem (loadtest/seed-stories.ts). */
const SEED_STORIES_PER_S = 300;

/** The phases a step runs: every target x variant x operation the target serves. */
export function phaseCount(step: StepPlan): number {
  const perVariant = step.targets.reduce(
    (n, t) => n + step.operations.filter((op) => servesOperation(t, op)).length,
    0,
  );
  return step.variants.length * perVariant;
}

/** Seconds a plan should take: a guide for --list, not a promise (a first synth adds ~10 s per flag set). */
export function estimateS(steps: readonly StepPlan[]): number {
  let s = 0;
  for (const step of steps) {
    const phases = phaseCount(step);
    // Bursts wait through a pause between each two (loadtest/artillery-runner.ts burstPauseS).
    const b = step.bursts;
    const bursty = b
      ? step.targets.length * step.variants.length * (b.operations?.length ?? step.operations.length)
      : 0;
    const pauses = b ? (Math.ceil(step.durationS / b.activeS) - 1) * b.pauseS : 0;
    // Targets side by side take one target's time.
    const share = step.targetsAtOnce ? 1 / Math.max(1, step.targets.length) : 1;
    s += LAB_START_S + REPORT_S + share * (phases * (step.durationS + PHASE_OVERHEAD_S) + bursty * pauses);
    // Before each phase but a target x variant's first, a gap, and before it run-load warms the
    // phase's functions up (uncounted, up to WARMUP_S).
    const gap = step.idleGapS ?? 0;
    const warm = Math.min(step.warmupS ?? WARMUP_S, step.durationS);
    const firsts =
      step.variants.length *
      step.targets.filter((t) => step.operations.some((op) => servesOperation(t, op))).length;
    if (gap > 0) s += share * Math.max(0, phases - firsts) * (gap + warm + (warm > 0 ? PHASE_OVERHEAD_S : 0));
    // Stories written straight into the engines: DynamoDB's batches dominate.
    s += Math.ceil((step.seedStories ?? 0) / SEED_STORIES_PER_S);
    // Seeding: one uncounted run per target x variant at SEED_RATE_PER_S (load-phases).
    const seed = step.seedRecords ?? 0;
    if (seed > 0)
      s += share * step.targets.length * step.variants.length * (Math.ceil(seed / 100) + PHASE_OVERHEAD_S);
  }
  return Math.round(s);
}

/** Measured on this machine: one environment start at a new memory size, and one invocation. */
const ENV_START_S = 1.5;
const INVOKE_S = 0.05;

/** Seconds a plan's tuning runs should take (one lab each, every power value, num invocations). */
export function estimateTuningS(tunings: readonly TuningPlan[]): number {
  return Math.round(
    tunings.reduce(
      (s, t) => s + LAB_START_S + t.powerValues.length * (ENV_START_S + t.num * INVOKE_S),
      REPORT_S,
    ),
  );
}

/** Measured on this machine (loaded): building and zipping the unbundled function, and one cold start with its request. */
const UNBUNDLED_BUILD_S = 10;
const COLD_START_S = 3;

/** Seconds a plan's cold-start comparisons should take (one lab each, an uncounted pair first). */
export function estimateColdStartsS(plans: readonly ColdStartPlan[]): number {
  return Math.round(
    plans.reduce((s, c) => s + LAB_START_S + UNBUNDLED_BUILD_S + 2 * (c.runs + 1) * COLD_START_S, 0),
  );
}

/** Seconds the direct-client runs should take: one lab each, every scenario at every level, and its seeding. */
export function estimateDirectS(plans: readonly DirectRedisPlan[]): number {
  return Math.round(
    plans.reduce((s, d) => s + LAB_START_S + d.levels.length * d.operations.length * (d.durationS + 1), 0),
  );
}

/** `45 s`, `3 min 10 s`. */
export function formatDuration(s: number): string {
  const r = Math.round(s);
  if (r < 60) return `${r} s`;
  const m = Math.floor(r / 60);
  const rest = r % 60;
  return rest === 0 ? `${m} min` : `${m} min ${rest} s`;
}
