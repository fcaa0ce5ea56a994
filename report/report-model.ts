/**
 * The typed model of one report (`LabReport`): what report.json holds and what the HTML and
 * Markdown renderers read. Built by build-report.ts from a results folder, a log file or a
 * CloudWatch fetch; every percentile in it comes from an HDR histogram (latency-histogram.ts).
 */

import type { TargetComparison as RunComparison } from '../runs/comparison';
import type { Ladder } from '../runs/latency-histogram';
import type { AfterGap, LoadShape } from '../runs/results';
import type { KEEP_ALIVE_REFERENCE } from './article-figures';

export type Layer = 'client' | 'function' | 'database';
export const LAYERS: readonly Layer[] = ['client', 'function', 'database'];

export const LAYER_TITLES: Readonly<Record<Layer, string>> = {
  client: 'client (Artillery)',
  function: 'function (REPORT Duration)',
  database: 'database (handler dbMs)',
};

export interface CdfPoint {
  readonly ms: number;
  /** share of samples at or below `ms`, percent */
  readonly percentile: number;
}

export interface Distribution {
  readonly ladder: Ladder;
  /** points for distribution plots */
  readonly cdf: readonly CdfPoint[];
}

export interface LayerStats extends Distribution {
  readonly layer: Layer;
  /** where the samples come from, e.g. `timings.jsonl clientMs` */
  readonly source: string;
}

export interface DurationSummary {
  readonly count: number;
  readonly avg: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

export interface InitSummary {
  readonly count: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly max: number | null;
}

export interface ColdStarts {
  /** REPORT lines seen for the function(s) of this group */
  readonly invocations: number;
  /** REPORT lines with an Init Duration: on-demand cold starts */
  readonly onDemandColdStarts: number;
  /** successful INIT_REPORT lines: environments initialised ahead of traffic (provisioned concurrency) */
  readonly provisionedInits: number;
  /** INIT_REPORT lines whose status is not success */
  readonly failedInits: number;
  /** first invocations of an environment, as the handler saw them (timing.coldStart); null without timings */
  readonly handlerColdStarts: number | null;
  /** initType -> count over the handler's cold starts */
  readonly coldStartsByInitType: Readonly<Record<string, number>>;
  /** every Init Duration: REPORT lines and INIT_REPORT lines */
  readonly init: InitSummary;
  /** Duration of invocations that paid an init (REPORT with Init Duration) */
  readonly cold: DurationSummary | null;
  readonly warm: DurationSummary | null;
}

export interface ConnectionReuse {
  readonly calls: number;
  readonly newConnections: number;
  readonly newConnectionShare: number;
  /** database time of calls that opened a new connection */
  readonly newConnection: Distribution | null;
  /** database time of calls that reused a kept-alive connection */
  readonly reused: Distribution | null;
}

export interface TimelinePoint {
  /** seconds from the start of the first run in the report */
  readonly offsetS: number;
  readonly startMs: number;
  readonly requests: number;
  readonly responses: number;
  readonly errors: number;
  readonly throughputPerSec: number | null;
}

/** One database unit of a run: each target's own, named by its price file. */
export interface DatabaseUnitCost {
  /** Price key, `<target>.<unit>`. */
  readonly key: string;
  readonly unit: string;
  readonly basis: string;
  /** Dollars per `per` units; null when unknown (`reason`). */
  readonly usd: number | null;
  readonly per: number;
  readonly source: string;
  readonly reason?: string;
}

/** $ per million requests of a run, from summary.json's cost block (runs/run-cost.ts). */
export interface GroupCost {
  readonly total: number;
  readonly lambda: number;
  readonly api: number;
  readonly database: number;
  /** Price file, region and date read. */
  readonly prices: string;
  /** measured, computed or modeled; null when the run recorded no database units. */
  readonly databaseBasis: string | null;
  /** Price keys left out because their price is unverified. */
  readonly unpriced: readonly string[];
  /** The database units the run billed, each with its price as the run recorded it. */
  readonly databaseUnits?: readonly DatabaseUnitCost[];
  /**
   * Provisioned concurrency reserved while configured, apart from $ per million: present when
   * the function had some; usdPerHour null when its price is unverified (`reason`).
   */
  readonly provisionedIdle?: {
    readonly concurrency: number;
    readonly usdPerHour: number | null;
    readonly reason?: string;
  };
}

/** One target x keep-alive variant x phase (create/get). */
export interface GroupReport {
  /** `dynamodb-get-keepalive-on` */
  readonly id: string;
  readonly target: string;
  readonly keepAlive: string;
  readonly phase: string;
  /** The function memory setting, MB, when the run compared several sizes (a group per size); else null. */
  readonly memoryMb: number | null;
  /** `dynamodb get, keep-alive on` (`, 128 MB` when the run compared memory sizes) */
  readonly label: string;
  readonly requests: number | null;
  readonly errors: number | null;
  readonly throughputPerSec: number | null;
  /** throughputPerSec x 60, the unit the histogram article counted in; null without it */
  readonly throughputPerMinute: number | null;
  /** Open loop (rate) or closed loop (workers), from summary.json; null where the input does not say. */
  readonly load: LoadShape | null;
  /** The phase followed an idle gap: which warm environments' connections survived it (summary.json). */
  readonly afterGap: AfterGap | null;
  readonly layers: readonly LayerStats[];
  readonly coldStarts: ColdStarts;
  readonly connections: ConnectionReuse | null;
  /** requests or commands per database call (summary.json's dbRequests); null without them */
  readonly dbRequests: RequestCount | null;
  readonly timeline: readonly TimelinePoint[];
  /** What the phase cost per million requests; null without a cost block. */
  readonly cost?: GroupCost | null;
}

export interface RequestCount {
  readonly p50: number;
  readonly max: number;
}

export interface P50P99 {
  readonly p50: number;
  readonly p99: number;
}

/** One target's row in a target comparison: its p50/p99 per layer, null where the layer is missing. */
export interface TargetRow {
  readonly target: string;
  /** TARGET_INFO's label, e.g. `QLDB` */
  readonly label: string;
  readonly clientMs: P50P99 | null;
  readonly functionMs: P50P99 | null;
  readonly dbMs: P50P99 | null;
  readonly dbRequestsP50: number | null;
  /** database p50 / the baseline target's database p50 in the same phase and variant; null without either */
  readonly dbRatioToBaseline: number | null;
  /** what the first article measured for this target (article-figures.ts), if it did */
  readonly article: string | null;
  /** $ per million requests by Lambda, API and database; null without a cost block */
  readonly cost?: GroupCost | null;
}

/** The targets side by side in one phase and keep-alive variant (only when a run has several targets). */
export interface TargetComparison {
  readonly phase: string;
  readonly keepAlive: string;
  /** The memory setting, when the run compared several. */
  readonly memoryMb?: number;
  /** The target the rows' dbRatioToBaseline divides by (core/lab-functions.ts baselineTarget). */
  readonly baseline: string;
  readonly rows: readonly TargetRow[];
}

export interface LayerRatio {
  readonly layer: Layer;
  readonly offP50: number;
  readonly onP50: number;
  /** off / on */
  readonly ratioP50: number;
  readonly offP99: number;
  readonly onP99: number;
  readonly ratioP99: number;
}

export interface KeepAliveComparison {
  readonly target: string;
  readonly phase: string;
  readonly layers: readonly LayerRatio[];
}

/** One entry per function (or log stream group) of the REPORT lines, as the issue specifies. */
export interface FunctionStats {
  readonly name: string;
  /** how the name was found: a `[function]` prefix, a log group, a log stream group, or the file */
  readonly nameFrom: 'function' | 'log-group' | 'log-stream' | 'file';
  readonly duration: {
    readonly count: number;
    readonly avg: number;
    readonly min: number;
    readonly max: number;
    readonly p50: number;
    readonly p95: number;
    readonly p99: number;
  };
  readonly billedDuration: { readonly avg: number };
  readonly maxMemoryUsedMb: { readonly max: number };
  readonly memorySizeMb: number | null;
  readonly init: InitSummary;
  readonly cold: DurationSummary | null;
  readonly warm: DurationSummary | null;
  readonly provisionedInits: number;
  readonly failedInits: number;
  /** REPORT lines with a Status (error, timeout) */
  readonly failedInvocations: number;
  /** for the distribution plot */
  readonly cdf: readonly CdfPoint[];
}

export interface InsightsTable {
  readonly query: string;
  readonly rows: readonly Readonly<Record<string, string>>[];
}

export interface TuningMemoryRow {
  readonly memoryMb: number;
  readonly avgDurationMs: number | null;
  readonly avgCostUsd: number | null;
  readonly totalCostUsd: number | null;
}

export interface TuningReport {
  readonly file: string;
  readonly function: string;
  /** Where it ran: the deployed state machine, or the local tuner on the lab. */
  readonly where: 'aws' | 'local';
  /** Local runs: the network profile the lab ran. */
  readonly profile: string | null;
  readonly executionArn: string | null;
  readonly strategy: string | null;
  readonly powerMb: number;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly visualization: string | null;
  readonly executionCostUsd: number | null;
  readonly lambdaCostUsd: number | null;
  readonly memory: readonly TuningMemoryRow[];
}

export interface MalformedLine {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
  readonly text: string;
}

export interface MalformedSummary {
  readonly count: number;
  readonly byReason: Readonly<Record<string, number>>;
  /** the first few, for the reader to look at */
  readonly examples: readonly MalformedLine[];
}

/**
 * One line of an experiment's "Article vs this run" table: what a source article measured
 * beside what this run measured, and why the two agree or differ.
 */
/**
 * What an experiment row compares: function Duration (REPORT lines), database time (the
 * handler's dbMs), a connection's time or share, a bundle size, an init (cold start) time,
 * throughput, or a count (round trips, commands, environments).
 */
export type RowKind = 'duration' | 'db' | 'connection' | 'size' | 'init' | 'throughput' | 'count';

export interface ExperimentRow {
  readonly metric: string;
  /** The quantity, the same for the article's figure and this run's. */
  readonly kind: RowKind;
  /**
   * The statistic, the same for both: mean, p50, p95, p99.22 (an HDR rung), max, share, single
   * (one observation), total, or a ratio of two of these (`mean ratio`).
   */
  readonly statistic: string;
  /** The article's figure as a number (from report/article-figures.ts); null when it gave a range or none. */
  readonly article: number | null;
  /** The article's figure as the article put it (`~40 ms`, `70-180 ms`), or why there is none. */
  readonly articleText: string;
  /**
   * The lab under the article's conditions (experiments/conditions.ts): the number the scorecard
   * counts; null only with a note that says why.
   */
  readonly measured: number | null;
  /**
   * The lab under today's conditions (nodejs24.x, SDK v3, TLS 1.3, the in-region profile): the
   * same number as `measured` where no condition differed for the row's steps (todayNote says
   * so); null with todayNote when it has none. Absent in runs made before the lab ran conditions.
   */
  readonly today?: number | null;
  /** Why the today column is what it is: the same run, a run of its own, or none. */
  readonly todayNote?: string;
  readonly unit: string;
  readonly note: string;
  /**
   * How the scorecard counts the row (experiments/scorecard.ts): `prediction` is compared and
   * counted; `calibration` (a lab input was derived from this very figure), `setting` (the row
   * restates a chosen value) and `gone` (the service no longer exists) are shown, not counted.
   */
  readonly role: RowRole;
  /** Why the figures differ, named for the scorecard when a prediction is outside ±30%; for a calibration row, the parameter fitted to it. */
  readonly cause?: string;
}

export type RowRole = 'prediction' | 'calibration' | 'setting' | 'gone';

/** A prediction outside the band, with its cause. */
export interface ScoreMiss {
  readonly metric: string;
  readonly article: number;
  readonly measured: number | null;
  /** measured / article; null without a measurement */
  readonly ratio: number | null;
  readonly cause: string;
}

/** An article figure no row sets beside a measurement, and why. */
export interface NotReproduced {
  readonly figure: string;
  readonly reason: string;
}

/** The host's load while the experiment ran: a CPU share is a ceiling, not a guarantee. */
export interface HostLoad {
  readonly cores: number;
  /** 1-minute load average, sampled through the run */
  readonly meanLoad: number;
  readonly maxLoad: number;
  /** the load average went above the cores: environments waited for CPU beyond their share */
  readonly exceeded: boolean;
}

/** How well an experiment's predictions matched its article's figures. */
export interface Scorecard {
  /** ± this share counts as within (0.3) */
  readonly band: number;
  /** rows with an article figure as a number */
  readonly figures: number;
  readonly predictions: number;
  readonly within: number;
  readonly outside: readonly ScoreMiss[];
  /** figures shown and not counted, by role */
  readonly calibration: number;
  readonly settings: number;
  readonly gone: number;
  /** rows of the lab's own with no article figure */
  readonly labOnly: number;
  /** the article's figures no row reproduces yet, each with why */
  readonly notReproduced: readonly NotReproduced[];
  readonly hostLoad: HostLoad | null;
}

/** A further table an experiment adds under its rows (e.g. full HDR ladders). */
export interface ExperimentTable {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** The terminal prints it too, after the rows (a short table that carries the answer). @default the report only */
  readonly terminal?: boolean;
}

/** A Conditions value (experiments/conditions.ts) as report.json records it. */
export interface ConditionsRecord {
  /** `today`, or the article's seed file */
  readonly name: string;
  readonly label: string;
  readonly year: number;
  readonly parameters: readonly {
    readonly parameter: string;
    readonly value: string;
    readonly sources: readonly string[];
    /** how the lab applied it, or why it could not */
    readonly lab: string;
  }[];
}

/** The two conditions an experiment ran under, and what differed per step. */
export interface ExperimentConditions {
  readonly article: ConditionsRecord;
  readonly today: ConditionsRecord;
  /** Per load step: what differed between the two runs ([]: one run served both columns). */
  readonly steps: readonly {
    readonly name: string;
    readonly differences: readonly string[];
    /** why the step ran under one of the two only */
    readonly note?: string;
  }[];
  /** What did not run under the article's conditions, and why (side runs, the deployed stack). */
  readonly notes: readonly string[];
}

/** One step of an experiment: one load run, its results folder beside the combined report. */
export interface ExperimentStep {
  readonly name: string;
  readonly description: string;
  /** the step's results folder, relative to the combined report */
  readonly dir: string;
  readonly wallS: number;
  /**
   * `tuning`: a local Power Tuning run (its result file in dir); `cold-starts`: bundled against
   * unbundled cold starts (cold-starts.json in dir); not a load run. @default load
   */
  readonly kind?: 'tuning' | 'cold-starts' | 'direct';
  /** The conditions the step ran under: the article's, today's, or both (nothing differed). @default both */
  readonly conditions?: 'article' | 'today' | 'both';
}

/** What `npm run experiment` adds to the report it writes: the article's figures beside ours. */
export interface ExperimentBlock {
  readonly name: string;
  /** the source article (seed file name) */
  readonly article: string;
  readonly title: string;
  readonly where: 'local' | 'aws';
  readonly quick: boolean;
  readonly wallS: number;
  /** targets the article had that the lab has not, and why (FaunaDB: service shut down 2025-05-30) */
  readonly missingTargets: readonly { readonly target: string; readonly reason: string }[];
  readonly steps: readonly ExperimentStep[];
  readonly rows: readonly ExperimentRow[];
  readonly tables: readonly ExperimentTable[];
  readonly scorecard: Scorecard;
  /** The article's conditions and today's; absent in runs made before the lab ran conditions. */
  readonly conditions?: ExperimentConditions;
}

export type ReportMode = 'results' | 'logs' | 'cloudwatch';

export interface LabReport {
  readonly schemaVersion: 1;
  readonly generatedAt: string;
  readonly mode: ReportMode;
  /** one line saying what was read */
  readonly input: string;
  readonly files: readonly string[];
  /** TARGET_INFO's notice of every target in the input, once each */
  readonly notices: readonly string[];
  /** summary.json's `lab` block (local or aws, rate, duration, rtt...) */
  readonly lab: Readonly<Record<string, unknown>> | null;
  readonly groups: readonly GroupReport[];
  readonly keepAlive: readonly KeepAliveComparison[];
  readonly keepAliveReference: typeof KEEP_ALIVE_REFERENCE;
  readonly targetComparison: readonly TargetComparison[];
  /**
   * The run's answer across targets x keep-alive (runs/comparison.ts): summary.json's
   * `comparison` when the input is a results folder, else computed from the groups' client and
   * database ladders. Null when there is nothing to compare (no get or create phase).
   */
  readonly runComparison: RunComparison | null;
  readonly functions: readonly FunctionStats[];
  readonly insights: { readonly stats: InsightsTable; readonly coldWarm: InsightsTable } | null;
  readonly tuning: readonly TuningReport[];
  readonly malformed: MalformedSummary;
  readonly warnings: readonly string[];
  /** Present in the report `npm run experiment` writes: its section opens the report. */
  readonly experiment?: ExperimentBlock;
}
