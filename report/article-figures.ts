/**
 * What the source articles measured, in one place: the experiments (npm run experiment) set
 * these beside their own numbers, and the report prints them beside the lab's; report.json
 * carries them so a reader sees what was compared with what. Each figure names its seed file
 * (the article texts are not part of the repository: these constants and their quoted phrases are).
 */

/** The seed files, by the experiment that reproduces each. */
export const SEEDS = {
  keepAlive: 'dynamodb-http-keep-alive.txt',
  qldb: 'qldb-vs-dynamodb-optimising.txt',
  histograms: 'serverless-redis-vs-faunadb-histograms.txt',
  provisioned: 'provisioned-concurrency-connections-ja.txt',
  newsTop10: 'dynamodb-faunadb-upstash-latency-hi.txt',
} as const;

/** Targets an article had that the lab cannot run, and why. */
export const MISSING_TARGETS: Readonly<Record<string, string>> = {
  faunadb: 'service shut down 2025-05-30',
};

/** One DynamoDB put from Lambda through Node's default agent (new TCP + TLS each call) and with keep-alive. */
export const KEEP_ALIVE_FIGURES = {
  source: SEEDS.keepAlive,
  /**
   * "Without HTTP keep-alive, the DynamoDB operation averaged around 33ms." / "With HTTP
   * keep-alive, that average drops to around 10ms."
   */
  putAvgMs: { off: 33, on: 10 },
  /**
   * A function doing 10 sequential DynamoDB operations: "With HTTP keep-alive, the function’s
   * execution time averages around 60ms." / "Without HTTP keep-alive, the average execution
   * time rises to 180ms."
   */
  tenSequentialAvgMs: { off: 180, on: 60 },
} as const;

export const QLDB_FIGURES = {
  source: SEEDS.qldb,
  /** "ran a baseline test creating 3000 new records in a 5 minute period": arrivalRate 10, duration 300 */
  load: { ratePerS: 10, durationS: 300 },
  /** "Uploading service qldb-perf-demo.zip file to S3 (10.18 MB)" before bundling, "(1.91 MB)" after */
  bundleMb: { before: 10.18, after: 1.91 },
  /** "a 200ms reduction in initialisation durations for cold starts, a decrease of 40%" */
  coldInitSavedMs: 200,
  coldInitSavedShare: 0.4,
  /** "the average cold start time (though with a minimal data set) was around 40% less than that of QLDB": DynamoDB / QLDB */
  dynamodbColdOverQldb: 0.6,
  /**
   * Power Tuning (lumigo-cli powertune-lambda -s balanced) on the QLDB get function: "a memory
   * allocation of 512MB works best in terms of the trade off between cost and performance"
   */
  powerTuningBalancedMb: 512,
  /** "inserts and queries to QLDB responding in around 40ms": Logs Insights avg(@duration) over REPORT lines */
  qldbMs: 40,
  /** DynamoDB creates and gets: "single-digit millisecond" averages */
  dynamodbBelowMs: 10,
  /** SendCommand calls per request in X-Ray: session, start, execute, commit */
  qldbCommandsPerRequest: 4,
  /** keep-alive "roughly halved" average and p95 Duration */
  keepAliveOffOverOn: 2,
} as const;

/** Percentile of each ladder rung the histogram article printed (HdrHistogram's halving ladder). */
export const HISTOGRAM_PERCENTILES = [50, 75, 87.5, 93.75, 99.21875, 99.902344, 100] as const;

export interface HistogramFigure {
  /** ms at HISTOGRAM_PERCENTILES (the article printed µs) */
  readonly ladderMs: readonly [number, number, number, number, number, number, number];
  /** requests completed in the minute the scenario ran */
  readonly perMinute: number;
  /** a FaunaDB ladder with too few samples for p99.9 printed its sixth rung at this percentile */
  readonly sixthPercentile?: number;
}

export type HistogramOperation = 'get' | 'create' | 'overwrite' | 'update';
export type HistogramParallelism = 1 | 10 | 100;

/**
 * Lambda Store (now Upstash Redis) and FaunaDB: read (get), insert (create), overwrite and
 * update, 60 s each at parallelism 1, 10 and 100, measured by a Go client on EC2 in eu-west-1.
 */
export const HISTOGRAM_FIGURES: {
  readonly source: string;
  readonly scenarioS: number;
  /** "1000 Product objects are inserted initially. Then ... randomly selected objects" (read, overwrite, update) */
  readonly seededRecords: number;
  readonly scenarios: Readonly<
    Record<
      HistogramOperation,
      Readonly<
        Record<
          HistogramParallelism,
          { readonly lambdaStore: HistogramFigure; readonly faunadb: HistogramFigure }
        >
      >
    >
  >;
} = {
  source: SEEDS.histograms,
  scenarioS: 60,
  seededRecords: 1000,
  scenarios: {
    get: {
      1: {
        lambdaStore: {
          ladderMs: [0.657919, 0.664063, 0.670719, 0.681471, 0.738815, 1.922047, 9.035775],
          perMinute: 90159,
        },
        faunadb: {
          ladderMs: [7.430143, 10.067967, 13.443071, 19.005439, 112.263167, 378.535935, 934.805503],
          perMinute: 5060,
        },
      },
      10: {
        lambdaStore: {
          ladderMs: [0.672767, 0.689151, 0.719359, 0.748543, 1.042943, 2.996223, 19.775487],
          perMinute: 864270,
        },
        faunadb: {
          ladderMs: [9.404415, 13.172735, 18.366463, 30.687231, 124.321791, 467.664895, 978.845695],
          perMinute: 41016,
        },
      },
      100: {
        lambdaStore: {
          ladderMs: [3.018751, 3.311615, 3.801087, 4.485119, 8.278015, 14.934015, 35.422207],
          perMinute: 1919849,
        },
        faunadb: {
          ladderMs: [84.672511, 104.267775, 123.142143, 151.126015, 457.965567, 1233.125375, 1272.971263],
          perMinute: 60888,
        },
      },
    },
    create: {
      1: {
        lambdaStore: {
          ladderMs: [0.676863, 0.688127, 0.709119, 0.729087, 2.779135, 7.696383, 19.644415],
          perMinute: 80460,
        },
        faunadb: {
          ladderMs: [180.355071, 190.316543, 222.822399, 287.309823, 505.675775, 557.842431, 616.038399],
          perMinute: 304,
          sixthPercentile: 99.609375,
        },
      },
      10: {
        lambdaStore: {
          ladderMs: [0.712191, 0.883199, 1.261567, 1.785855, 14.344191, 181.927935, 1911.554047],
          perMinute: 360779,
        },
        faunadb: {
          ladderMs: [172.228607, 221.904895, 239.206399, 286.785535, 511.967231, 661.127167, 714.604543],
          perMinute: 3070,
        },
      },
      100: {
        lambdaStore: {
          ladderMs: [7.737343, 11.362303, 20.529151, 32.604159, 283.901951, 664.272895, 2031.091711],
          perMinute: 370100,
        },
        faunadb: {
          ladderMs: [179.175423, 197.525503, 231.211007, 277.348351, 495.976447, 664.272895, 835.190783],
          perMinute: 29762,
        },
      },
    },
    overwrite: {
      1: {
        lambdaStore: {
          ladderMs: [0.670207, 0.680447, 0.697343, 0.716799, 1.756159, 4.820991, 16.121855],
          perMinute: 83292,
        },
        faunadb: {
          ladderMs: [182.583295, 193.200127, 243.269631, 314.834943, 469.237759, 529.268735, 944.766975],
          perMinute: 297,
          sixthPercentile: 99.609375,
        },
      },
      10: {
        lambdaStore: {
          ladderMs: [0.697343, 0.771583, 0.973823, 1.715199, 3.962879, 8.732671, 28.622847],
          perMinute: 660878,
        },
        faunadb: {
          ladderMs: [153.747455, 163.053567, 203.161599, 283.115519, 884.998143, 1523.580927, 1799.356415],
          perMinute: 3271,
        },
      },
      100: {
        lambdaStore: {
          ladderMs: [5.992447, 7.618559, 9.592831, 14.442495, 29.048831, 40.534015, 63.045631],
          perMinute: 835029,
        },
        faunadb: {
          ladderMs: [177.471487, 197.001215, 223.346687, 293.339135, 569.901055, 871.366655, 1138.753535],
          perMinute: 29941,
        },
      },
    },
    update: {
      1: {
        lambdaStore: {
          ladderMs: [0.659455, 0.667647, 0.677375, 0.692735, 0.972799, 5.734399, 206.045183],
          perMinute: 87742,
        },
        faunadb: {
          ladderMs: [251.789311, 296.747007, 350.224383, 472.907775, 754.450431, 924.844031, 924.844031],
          perMinute: 209,
          sixthPercentile: 99.609375,
        },
      },
      10: {
        lambdaStore: {
          ladderMs: [0.657407, 0.681983, 0.723455, 0.826367, 4.118527, 7.258111, 15.990783],
          perMinute: 790974,
        },
        faunadb: {
          ladderMs: [184.942591, 241.958911, 363.069439, 539.492351, 963.117055, 1436.549119, 1584.398335],
          perMinute: 2476,
        },
      },
      100: {
        lambdaStore: {
          ladderMs: [3.966975, 5.631999, 6.868991, 8.208383, 20.807679, 31.997951, 72.155135],
          perMinute: 1298606,
        },
        faunadb: {
          ladderMs: [231.342079, 530.055167, 824.180735, 1097.859071, 1800.404991, 2283.798527, 3024.093183],
          perMinute: 13303,
        },
      },
    },
  },
};

/** One call of the provisioned-concurrency article's tables, after provisioning. */
export interface ProvisionedCall {
  /** the table's case: the time since the previous call it stands for, s (90: provisioning done to the first request) */
  readonly gapS: number;
  /** the time since the previous call by the table's start times, s (null for the first request) */
  readonly sinceS: number | null;
  /** "DynamoDBレイテンシ", ms */
  readonly dbMs: number;
  /** REPORT Duration, ms */
  readonly durationMs: number;
  /** the logged local port changed: a new connection */
  readonly newConnection: boolean;
}

/** Provisioned concurrency 1 with a DynamoDB client created at init; 256 MB, Node.js 20.x. */
export const PROVISIONED_FIGURES = {
  source: SEEDS.provisioned,
  /** provisioning to the first request took "about 1.5 minutes" */
  gapS: 90,
  /**
   * The keep-alive-on table's rows 2 to 9 ("ログ確認(KeepAliveあり)"): a request, then its gap,
   * then the next, in one provisioned environment. Ports kept after 41.2, 60.0, 60.1 and 59.0 s;
   * changed after 65.6, 66.7 and 65.2 s.
   */
  tableOn: [
    { gapS: 90, sinceS: null, dbMs: 256.56, durationMs: 1281.08, newConnection: true },
    { gapS: 40, sinceS: 41.151, dbMs: 21.163, durationMs: 420.63, newConnection: false },
    { gapS: 60, sinceS: 60.027, dbMs: 20.232, durationMs: 393.81, newConnection: false },
    { gapS: 65, sinceS: 65.575, dbMs: 70.111, durationMs: 407.46, newConnection: true },
    { gapS: 60, sinceS: 60.102, dbMs: 20.287, durationMs: 349.38, newConnection: false },
    { gapS: 65, sinceS: 66.657, dbMs: 74.318, durationMs: 406.58, newConnection: true },
    { gapS: 65, sinceS: 65.172, dbMs: 182.515, durationMs: 602.94, newConnection: true },
    { gapS: 60, sinceS: 58.979, dbMs: 20.482, durationMs: 369.89, newConnection: false },
  ] as readonly ProvisionedCall[],
  /**
   * The keep-alive-off table's rows 2 to 7 ("ログ確認(KeepAliveなし)"): every call on a new port.
   * Its first request's REPORT: "Init Duration: 2395.82 ms".
   */
  tableOff: [
    { gapS: 90, sinceS: null, dbMs: 120.346, durationMs: 1220.41, newConnection: true },
    { gapS: 20, sinceS: 19.524, dbMs: 98.379, durationMs: 448.36, newConnection: true },
    { gapS: 60, sinceS: 59.533, dbMs: 66.93, durationMs: 471.7, newConnection: true },
    { gapS: 65, sinceS: 65.529, dbMs: 101.498, durationMs: 487.16, newConnection: true },
    { gapS: 60, sinceS: 60.117, dbMs: 83.073, durationMs: 444.54, newConnection: true },
    { gapS: 65, sinceS: 65.908, dbMs: 65.295, durationMs: 468.45, newConnection: true },
  ] as readonly ProvisionedCall[],
  /** the keep-alive-on table's DynamoDB latency of each call on a kept port, rows 3, 4, 6 and 9 */
  keptPortMs: [21.163, 20.232, 20.287, 20.482],
  /** "ポートが変更された場合、70msから180ms前後": calls on a new port after an idle minute */
  newConnectionMs: { low: 70, high: 180 },
  /**
   * The idle time a kept connection survived and the shortest that lost it, by the keep-alive-on
   * table's start times (rows 3 to 4 and 4 to 5): the server's idle timeout lies between.
   */
  keptAfterS: 60.102,
  droppedAfterS: 65.172,
  /** the engines' default idle timeout, taken from the two above (local/network: "the provisioned-concurrency article") */
  idleTimeoutS: 60,
  /** the function's memory and provisioned concurrency: "メモリ:256MB", one environment */
  memoryMb: 256,
  provisionedConcurrency: 1,
  /**
   * The keep-alive-on run's provisioned init: the first request's REPORT "Init Duration: 2229.18 ms"
   * (INIT_START 14:31:54.641, its module's first line 14:31:56.332, its DynamoDB call at init after
   * it); the keep-alive-off run's was 2395.82 ms.
   */
  initDurationMs: { on: 2229.18, off: 2395.82 },
  /** the DynamoDB call each run made during the provisioned init ("getTest: 461.182ms", "getTest: 462.607ms") */
  initCallMs: { on: 461.182, off: 462.607 },
} as const;

/** The news site's top-10 query, measured inside Lambda with perf_hooks (April 2021). */
export const NEWS_TOP10_FIGURES = {
  source: SEEDS.newsTop10,
  /**
   * The top-10 query's time inside the function (perf_hooks around the one query, the view
   * count updates left out), p99 of the HDR histogram over every page request: "Upstash में
   * सबसे कम विलंबता (~ 50ms पर 99वें प्रतिशत)", FaunaDB "~900ms", DynamoDB "~200ms 99वें पर्सेंटाइल पर".
   */
  p99Ms: { redis: 50, dynamodb: 200, faunadb: 900 },
  /**
   * After a refresh, the clients warm: one page load observed, the same query time ("Upstash के
   * लिए विलंबता संख्या घटकर ~1ms हो गई है; और डायनेमोडीबी के लिए ~7ms")
   */
  warmMs: { redis: 1, dynamodb: 7 },
  /** requests the top 10 sent: ZREVRANGE (each story's JSON in the sorted set), one GSI Query */
  requestsPerQuery: { redis: 1, dynamodb: 1 },
  /** the functions' memory setting (us-west-1, nodejs14.x) */
  memoryMb: 1024,
  /** NY Times stories loaded, each scored at random */
  stories: 7001,
  /** a job fetched the site this often and saw the warm figures: visits sparser than this met cold clients */
  keepWarmEveryS: 15,
} as const;

/** What the articles measured for one DynamoDB call without keep-alive and with it (KEEP_ALIVE_FIGURES). */
export const KEEP_ALIVE_REFERENCE = {
  offMs: KEEP_ALIVE_FIGURES.putAvgMs.off,
  onMs: KEEP_ALIVE_FIGURES.putAvgMs.on,
  ratio: KEEP_ALIVE_FIGURES.putAvgMs.off / KEEP_ALIVE_FIGURES.putAvgMs.on,
  source: `the DynamoDB HTTP keep-alive article: ${KEEP_ALIVE_FIGURES.putAvgMs.off} ms -> ${KEEP_ALIVE_FIGURES.putAvgMs.on} ms per call`,
} as const;

/**
 * The first article's comparison: QLDB ~40 ms per call against single-digit ms for DynamoDB.
 * `figures` is what the target comparison prints beside each target's rows.
 */
export const TARGET_REFERENCE: {
  readonly source: string;
  readonly figures: Readonly<Record<string, string>>;
} = {
  source: `the first article measured QLDB at ~${QLDB_FIGURES.qldbMs} ms per call against single-digit ms for DynamoDB`,
  figures: { dynamodb: 'single-digit ms', qldb: `~${QLDB_FIGURES.qldbMs} ms` },
};

/** The first article's figure for a target, or null when it did not measure it. */
export function targetFigure(target: string): string | null {
  return Object.hasOwn(TARGET_REFERENCE.figures, target) ? TARGET_REFERENCE.figures[target] : null;
}
