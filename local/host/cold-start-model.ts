/**
 * The part of Lambda's Init Duration that starting a local process does not pay: the sandbox's
 * and the managed runtime's own start (https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html:
 * the Init phase starts the extensions, bootstraps the runtime and runs the function's static
 * code, and Init Duration covers all three). Published Init Durations of a hello-world function
 * give that part per runtime and architecture: a function with no code of its own pays nothing
 * else. A local environment measures its own runtime start (process start to the bundle's
 * import) and waits the rest, so an empty handler's Init Duration is the published figure and
 * a bundle's own module load comes on top of it, as in Lambda.
 *
 * The figures are data, each with its source; one model for every runtime and architecture.
 * No source separates the client's extra wait for sandbox placement that Init Duration leaves
 * out (the benchmarks read REPORT lines), so that wait is not modeled.
 */

export type Architecture = 'x86_64' | 'arm64';
export const ARCHITECTURES: readonly Architecture[] = ['x86_64', 'arm64'];

/** One published Init Duration of a hello-world function. */
export interface PublishedInit {
  /** Lambda's runtime identifier, e.g. `nodejs24.x`. */
  readonly runtime: string;
  readonly architecture: Architecture;
  /** Init Duration, ms: the median of the cold starts the sources list. */
  readonly initMs: number;
  /** The year the cold starts were measured. */
  readonly year: number;
  /** What was measured, in a few words, with its figures. */
  readonly measured: string;
  /** Where the figures are published: one file per day. */
  readonly sources: readonly string[];
}

const LAMBDA_PERF = 'https://github.com/maxday/lambda-perf/blob/main/data';
/**
 * maxday/lambda-perf: every day a hello-world handler (`() => ({ statusCode: 200 })`, zip) is
 * deployed per runtime, architecture and memory size (128, 256, 512, 1024 MB) and invoked 10
 * times as cold starts; the file lists each REPORT line's Init Duration. Pooled here over four
 * days and the four sizes (160 cold starts): the per-size medians differ by a few ms with no
 * trend, as the init phase runs on its burst CPU whatever the memory.
 */
const lambdaPerf = (days: readonly string[]): string[] => days.map((d) => `${LAMBDA_PERF}/${d}.json`);
const HELLO_WORLD =
  'hello-world handler, zip, Init Duration of 160 cold starts (10 a day per memory size of 128, 256, 512 and 1024 MB, over four days; lambda-perf daily benchmark)';

/**
 * What the model knows. nodejs12.x and nodejs14.x (the runtimes the 2019-2021 seed articles ran
 * on, then on x86_64 only: arm64 came to Lambda in September 2021) were measured in 2023 and
 * 2024, on the Lambda of those years, not of the articles' own.
 */
export const PUBLISHED_INITS: readonly PublishedInit[] = [
  {
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    initMs: 123.8,
    year: 2026,
    measured: `${HELLO_WORLD}: median 123.8 ms (per size 121.7-125.3 ms)`,
    sources: lambdaPerf(['2026-08-19', '2026-08-20', '2026-08-21', '2026-08-22']),
  },
  {
    runtime: 'nodejs24.x',
    architecture: 'x86_64',
    initMs: 136.4,
    year: 2026,
    measured: `${HELLO_WORLD}: median 136.4 ms (per size 132.9-138.9 ms)`,
    sources: lambdaPerf(['2026-08-19', '2026-08-20', '2026-08-21', '2026-08-22']),
  },
  {
    runtime: 'nodejs22.x',
    architecture: 'arm64',
    initMs: 130.4,
    year: 2026,
    measured: `${HELLO_WORLD}: median 130.4 ms (per size 129.8-131.6 ms)`,
    sources: lambdaPerf(['2026-08-19', '2026-08-20', '2026-08-21', '2026-08-22']),
  },
  {
    runtime: 'nodejs22.x',
    architecture: 'x86_64',
    initMs: 141.9,
    year: 2026,
    measured: `${HELLO_WORLD}: median 141.9 ms (per size 139.7-145.1 ms)`,
    sources: lambdaPerf(['2026-08-19', '2026-08-20', '2026-08-21', '2026-08-22']),
  },
  {
    runtime: 'nodejs20.x',
    architecture: 'arm64',
    initMs: 132.6,
    year: 2026,
    measured: `${HELLO_WORLD}: median 132.6 ms (per size 130.6-133.4 ms)`,
    sources: lambdaPerf(['2026-08-19', '2026-08-20', '2026-08-21', '2026-08-22']),
  },
  {
    runtime: 'nodejs20.x',
    architecture: 'x86_64',
    initMs: 142.8,
    year: 2026,
    measured: `${HELLO_WORLD}: median 142.8 ms (per size 141.7-143.2 ms)`,
    sources: lambdaPerf(['2026-08-19', '2026-08-20', '2026-08-21', '2026-08-22']),
  },
  {
    runtime: 'nodejs14.x',
    architecture: 'arm64',
    initMs: 180.2,
    year: 2024,
    measured: `${HELLO_WORLD}: median 180.2 ms (per size 179.5-181.4 ms)`,
    sources: lambdaPerf(['2024/2024-02-05', '2024/2024-02-06', '2024/2024-02-07', '2024/2024-02-08']),
  },
  {
    runtime: 'nodejs14.x',
    architecture: 'x86_64',
    initMs: 172.7,
    year: 2024,
    measured: `${HELLO_WORLD}: median 172.7 ms (per size 171.6-175.0 ms)`,
    sources: lambdaPerf(['2024/2024-02-05', '2024/2024-02-06', '2024/2024-02-07', '2024/2024-02-08']),
  },
  {
    runtime: 'nodejs12.x',
    architecture: 'arm64',
    initMs: 162.4,
    year: 2023,
    measured: `${HELLO_WORLD}: median 162.4 ms (per size 161.2-163.6 ms)`,
    sources: lambdaPerf(['2023/2023-05-20', '2023/2023-05-21', '2023/2023-05-22', '2023/2023-05-23']),
  },
  {
    runtime: 'nodejs12.x',
    architecture: 'x86_64',
    initMs: 157.9,
    year: 2023,
    measured: `${HELLO_WORLD}: median 157.9 ms (per size 156.6-159.8 ms)`,
    sources: lambdaPerf(['2023/2023-05-20', '2023/2023-05-21', '2023/2023-05-22', '2023/2023-05-23']),
  },
];

/** The model for one function: its runtime and architecture, and the figure it follows if any. */
export interface ColdStartModel {
  readonly runtime: string;
  readonly architecture: Architecture;
  /** undefined: no published figure for this runtime and architecture, and nothing is added. */
  readonly published?: PublishedInit;
}

/** Lambda's default architecture when a template names none. */
export const DEFAULT_ARCHITECTURE: Architecture = 'x86_64';

export function isArchitecture(v: unknown): v is Architecture {
  return v === 'x86_64' || v === 'arm64';
}

export function coldStartModel(
  runtime: string,
  architecture: Architecture = DEFAULT_ARCHITECTURE,
): ColdStartModel {
  const published = PUBLISHED_INITS.find((p) => p.runtime === runtime && p.architecture === architecture);
  return { runtime, architecture, ...(published ? { published } : {}) };
}

/**
 * What a cold start waits beyond the local process, ms: the published init less the local
 * process's own runtime start (Node's start and the runtime worker's, up to the bundle's import),
 * measured in each environment as it starts, never below 0. Measured per environment rather than
 * once: the local start varies with the host's load and the environment's CPU share, and the sum
 * should not. Lambda's spread around its median is not modeled.
 */
export function modeledRemainderMs(model: ColdStartModel | undefined, runtimeStartMs: number): number {
  const published = model?.published?.initMs;
  if (published === undefined) return 0;
  return Math.max(0, published - Math.max(0, runtimeStartMs));
}

/** One line for the start screen and summary.json: what the model adds, or why nothing. */
export function coldStartModelLine(models: readonly ColdStartModel[] | undefined): string {
  if (models === undefined) return 'cold start: Lambda’s sandbox and runtime start not modeled (turned off)';
  const parts = uniqueModels(models).map((m) =>
    m.published
      ? `${m.runtime} ${m.architecture} ${m.published.initMs} ms (hello-world Init Duration, ${m.published.year})`
      : `${m.runtime} ${m.architecture}: no published figure, not modeled`,
  );
  return `cold start: Init Duration is at least Lambda’s published empty-function init, the local runtime start counted in it: ${parts.join('; ') || 'no functions'}`;
}

/** summary.json's and report.json's record of the model: on or off, and each figure with its source. */
export function coldStartBlock(models: readonly ColdStartModel[] | undefined): Record<string, unknown> {
  return {
    coldStartModel: coldStartModelLine(models),
    coldStart: {
      modeled: models !== undefined,
      ...(models === undefined
        ? { reason: 'turned off (--cold-start off)' }
        : {
            figures: uniqueModels(models).map((m) => ({
              runtime: m.runtime,
              architecture: m.architecture,
              publishedInitMs: m.published?.initMs ?? null,
              ...(m.published
                ? { year: m.published.year, measured: m.published.measured, sources: m.published.sources }
                : { note: 'no published figure for this runtime and architecture: nothing added' }),
            })),
          }),
    },
  };
}

function uniqueModels(models: readonly ColdStartModel[]): ColdStartModel[] {
  const seen = new Map<string, ColdStartModel>();
  for (const m of models) seen.set(`${m.runtime} ${m.architecture}`, m);
  return [...seen.values()];
}
