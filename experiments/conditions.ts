/**
 * The conditions a figure was measured under, as cited parameters of the one model: today's
 * (what a user deploying now gets) and each seed article's (its year's runtime, SDK, TLS,
 * memory, region and client placement). An experiment runs its steps under its article's
 * conditions and, where they differ, under today's, so each row shows the article's figure,
 * the lab under the article's conditions and the lab today. Never a factor per figure: a
 * condition changes what the functions run (their TLS version, their memory, their keep-alive
 * variant), and the model does the rest. Plain data: --list may import it.
 */
import type { KeepAliveVariant, TlsMaxVersion } from '../core/lab-functions';
import type { Citation } from '../local/network/profiles';
import { SEEDS } from '../report/article-figures';
import type { ConditionsRecord } from '../report/report-model';
import type { StepPlan } from './types';

export interface ConditionParameter<T> {
  /** null: the article does not say, and no source gives it */
  readonly value: T;
  readonly sources: readonly Citation[];
  /** How the lab applies it, or why it cannot. */
  readonly lab: string;
}

export interface SdkBehaviour {
  readonly name: string;
  /** The SDK's own HTTP agent kept connections alive without being told to. */
  readonly keepsAliveByDefault: boolean;
}

export interface Conditions {
  /** `today`, or the seed file of the article */
  readonly name: string;
  /** `today`, `the article (2019)` */
  readonly label: string;
  readonly year: number;
  /**
   * The Lambda runtime. A hook: the sandbox and runtime start (Init Duration beyond the module
   * load) comes from the cold-start model (local/host/), not from here.
   */
  readonly runtime: ConditionParameter<string | null>;
  readonly sdk: ConditionParameter<SdkBehaviour | null>;
  /**
   * What the article's function did about keep-alive: `enabled` (an agent or
   * AWS_NODEJS_CONNECTION_REUSE_ENABLED), `sdk-default` (left the SDK's), `both` (compared the two).
   */
  readonly functionKeepAlive: ConditionParameter<'enabled' | 'sdk-default' | 'both' | null>;
  /** The newest TLS version the service endpoint negotiated with the function. */
  readonly tlsMaxVersion: ConditionParameter<TlsMaxVersion | null>;
  /** Function memory, MB. */
  readonly memoryMb: ConditionParameter<number | null>;
  readonly region: ConditionParameter<string | null>;
  /** Where the client that timed the figure ran. */
  readonly clientPlacement: ConditionParameter<string>;
  /** The lab's network profile (local/network/profiles.ts). */
  readonly profile: ConditionParameter<string>;
}

// ---------------------------------------------------------------- sources

const SDK_V2_REUSE: Citation = {
  what: 'SDK for JavaScript v2: the default Node.js HTTP/HTTPS agent creates a new TCP connection for every request; AWS_NODEJS_CONNECTION_REUSE_ENABLED=1 (from 2.463.0) or an agent with keepAlive reuses them',
  url: 'https://docs.aws.amazon.com/sdk-for-javascript/v2/developer-guide/node-reusing-connections.html',
};
const SDK_V3_REUSE: Citation = {
  what: 'SDK for JavaScript v3 reuses TCP connections by default; keep-alive off needs an agent with keepAlive false',
  url: 'https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/node-reusing-connections.html',
};
const SDK_V3_GA: Citation = {
  what: 'SDK for JavaScript v3 generally available on 2020-12-15, keeping Node.js HTTP connections alive by default',
  url: 'https://aws.amazon.com/blogs/developer/http-keep-alive-is-on-by-default-in-modular-aws-sdk-for-javascript/',
};
const TLS_ROUND_TRIPS: Citation = {
  what: 'TLS 1.3 completes a full handshake in one round trip, TLS 1.2 in two (RFC 8446, section 1.2)',
  url: 'https://www.rfc-editor.org/rfc/rfc8446',
};
const TLS_NEGOTIATION: Citation = {
  what: 'AWS API endpoints: the client offers its preferred TLS version and the endpoint uses the highest both support; TLS 1.2 the minimum from 2023',
  url: 'https://aws.amazon.com/blogs/security/tls-1-2-required-for-aws-endpoints/',
};
const TLS13_ROLLOUT: Citation = {
  what: 'AWS re:Inforce 2024 (DAP304): the service API endpoints were moved to TLS 1.2 at least and TLS 1.3 enabled on them, a fleet-wide rollout presented in 2024',
  url: 'https://awsrelearn.com/aws-reinforce-2024/cloud-upgrade-modern-tls-encryption-for-all-aws-service-connections-dap304',
};
const LAMBDA_RUNTIMES: Citation = {
  what: 'Lambda runtimes: nodejs24.x is the current Node.js runtime; nodejs20.x deprecated 2026-04-30',
  url: 'https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtimes.html',
};
const NODE8_DEPRECATION: Citation = {
  what: 'Lambda deprecated nodejs8.10 from 2020-01-06 (creates) in favour of nodejs10.x, so 2019 functions ran nodejs8.10 or nodejs10.x',
  url: 'https://github.com/aws/aws-cdk/issues/4653',
};
const SERVERLESS_DEFAULT_MEMORY: Citation = {
  what: 'Serverless Framework v1: a function without memorySize gets 1024 MB (provider default)',
  url: 'https://app.unpkg.com/serverless@1.20.0/files/lib/utils/functionInfoUtils.js',
};

const seed = (file: string, what: string): Citation => ({ what, seed: file });

// ---------------------------------------------------------------- values

const NOT_MODELED_RUNTIME =
  'recorded only: the environments run the lab’s Node (nodejs24.x’s major); the runtime’s own init comes from the cold-start model';
const INIT_APPLIED =
  'applied to the init: the cold-start model’s published Init Duration for this runtime on x86_64 (the only architecture then); the environments still run the lab’s Node';
const SAME_PROFILE =
  'the in-region profile: the lab has one cited profile for a function and its database in one region';
const TLS_APPLIED =
  'applied: every function’s database clients offer at most this version (LAB_TLS_MAX_VERSION), so a new connection pays its handshake’s round trips';
const REGION_NOT_MODELED = 'not modeled: the round trip is the in-region profile’s, whatever the region';

export const TODAY: Conditions = {
  name: 'today',
  label: 'today',
  year: 2026,
  runtime: { value: 'nodejs24.x', sources: [LAMBDA_RUNTIMES], lab: NOT_MODELED_RUNTIME },
  sdk: {
    value: { name: 'AWS SDK for JavaScript v3', keepsAliveByDefault: true },
    sources: [SDK_V3_REUSE, SDK_V3_GA],
    lab: 'applied: the functions bundle SDK v3',
  },
  functionKeepAlive: {
    value: 'sdk-default',
    sources: [SDK_V3_REUSE],
    lab: 'the SDK’s default (kept); an experiment that compares keep-alive runs both variants',
  },
  tlsMaxVersion: {
    value: 'TLSv1.3',
    sources: [TLS13_ROLLOUT, TLS_NEGOTIATION, TLS_ROUND_TRIPS],
    lab: 'applied: Node offers TLS 1.3 and the network model accepts it',
  },
  memoryMb: {
    value: null,
    sources: [],
    lab: 'each step’s own (the template’s 512 MB unless the experiment names the article’s)',
  },
  region: { value: null, sources: [], lab: REGION_NOT_MODELED },
  clientPlacement: {
    value: 'the function in the database’s region',
    sources: [],
    lab: 'the local host’s environments behind the network model',
  },
  profile: { value: 'in-region', sources: [], lab: SAME_PROFILE },
};

const KEEP_ALIVE_ARTICLE: Conditions = {
  name: SEEDS.keepAlive,
  label: 'the article (2019)',
  year: 2019,
  runtime: {
    value: null,
    sources: [NODE8_DEPRECATION],
    lab: `not stated (nodejs8.10 or nodejs10.x in 2019); ${NOT_MODELED_RUNTIME}`,
  },
  sdk: {
    value: { name: 'AWS SDK for JavaScript v2', keepsAliveByDefault: false },
    sources: [
      seed(
        SEEDS.keepAlive,
        'Node’s default agent, no keep-alive; AWS_NODEJS_CONNECTION_REUSE_ENABLED since 2.463.0',
      ),
      SDK_V2_REUSE,
    ],
    lab: 'SDK v3 with an agent whose keepAlive is the article’s setting: the same connection behaviour, not SDK v2’s code',
  },
  functionKeepAlive: {
    value: 'both',
    sources: [seed(SEEDS.keepAlive, 'the same put with keep-alive off and on')],
    lab: 'applied: the step runs the off and on variants (KEEP_ALIVE)',
  },
  tlsMaxVersion: {
    value: 'TLSv1.2',
    sources: [TLS13_ROLLOUT, TLS_ROUND_TRIPS],
    lab: TLS_APPLIED,
  },
  memoryMb: { value: null, sources: [], lab: 'not stated: each step’s own' },
  region: { value: null, sources: [], lab: `not stated; ${REGION_NOT_MODELED}` },
  clientPlacement: {
    value: 'inside the Lambda function (the put timed in the handler), called through API Gateway',
    sources: [seed(SEEDS.keepAlive, 'a function behind API Gateway that puts an item into a DynamoDB table')],
    lab: 'applied: the handler times its database call',
  },
  profile: { value: 'in-region', sources: [], lab: SAME_PROFILE },
};

const QLDB_ARTICLE: Conditions = {
  name: SEEDS.qldb,
  label: 'the article (2020)',
  year: 2020,
  runtime: {
    value: null,
    sources: [NODE8_DEPRECATION],
    lab: `not stated (nodejs10.x or nodejs12.x in mid-2020); ${NOT_MODELED_RUNTIME}`,
  },
  sdk: {
    value: { name: 'AWS SDK for JavaScript v2', keepsAliveByDefault: false },
    sources: [
      seed(
        SEEDS.qldb,
        'require(\'aws-sdk\'); "the AWS SDK for Node ... creates a new TCP connection each time by default"',
      ),
      SDK_V2_REUSE,
    ],
    lab: 'SDK v3 with an agent whose keepAlive is the article’s setting: the same connection behaviour, not SDK v2’s code',
  },
  functionKeepAlive: {
    value: 'both',
    sources: [seed(SEEDS.qldb, 'a baseline, then AWS_NODEJS_CONNECTION_REUSE_ENABLED=1 on every function')],
    lab: 'applied: the step runs the off and on variants (KEEP_ALIVE)',
  },
  tlsMaxVersion: { value: 'TLSv1.2', sources: [TLS13_ROLLOUT, TLS_ROUND_TRIPS], lab: TLS_APPLIED },
  memoryMb: {
    value: 1024,
    sources: [SERVERLESS_DEFAULT_MEMORY, seed(SEEDS.qldb, 'deployed with sls deploy; no memorySize shown')],
    lab: 'applied to the load steps: the framework’s default, the article states none for its load tests',
  },
  region: {
    value: 'eu-west-1',
    sources: [seed(SEEDS.qldb, 'lumigo-cli ... -r eu-west-1')],
    lab: REGION_NOT_MODELED,
  },
  clientPlacement: {
    value: 'Artillery from the author’s machine; the figures are REPORT Duration inside Lambda',
    sources: [seed(SEEDS.qldb, 'CloudWatch Logs Insights over REPORT lines')],
    lab: 'applied: the rows read REPORT Duration, which leaves the client’s network out',
  },
  profile: { value: 'in-region', sources: [], lab: SAME_PROFILE },
};

const HISTOGRAMS_ARTICLE: Conditions = {
  name: SEEDS.histograms,
  label: 'the article (2020)',
  year: 2020,
  runtime: {
    value: 'Go 1.14.3 on EC2 (no Lambda)',
    sources: [seed(SEEDS.histograms, 'Go runtime 1.14.3, go-redis 7.2.0, m6g.xlarge, Ubuntu 18.04 arm64')],
    lab: 'the direct client (experiments/direct-redis.ts) is Node’s, on this machine',
  },
  sdk: {
    value: null,
    sources: [],
    lab: 'no AWS SDK: a Redis client straight to the database',
  },
  functionKeepAlive: {
    value: 'enabled',
    sources: [seed(SEEDS.histograms, 'goroutines in a loop on go-redis, whose pool keeps its connections')],
    lab: 'applied: the direct client keeps one connection per worker',
  },
  tlsMaxVersion: {
    value: null,
    sources: [],
    lab: 'not stated (whether the Go client used TLS to Lambda Store is not said): the lab runs its TLS 1.3',
  },
  memoryMb: { value: null, sources: [], lab: 'no Lambda: an m6g.xlarge client' },
  region: {
    value: 'eu-west-1',
    sources: [seed(SEEDS.histograms, 'AWS eu-west-1 for the client and Lambda Store')],
    lab: REGION_NOT_MODELED,
  },
  clientPlacement: {
    value: 'an EC2 instance in the database’s region, straight to Redis',
    sources: [seed(SEEDS.histograms, 'client application in eu-west-1 on m6g.xlarge')],
    lab: 'applied by the direct-client step; the through-Lambda steps are the lab’s own',
  },
  profile: { value: 'in-region', sources: [], lab: SAME_PROFILE },
};

const PROVISIONED_ARTICLE: Conditions = {
  name: SEEDS.provisioned,
  label: 'the article (2024)',
  year: 2024,
  runtime: {
    value: 'nodejs20.x',
    sources: [seed(SEEDS.provisioned, 'INIT_START Runtime Version: nodejs:20.v18')],
    lab: INIT_APPLIED,
  },
  sdk: {
    value: { name: 'AWS SDK for JavaScript v3 (3.518.0)', keepsAliveByDefault: true },
    sources: [seed(SEEDS.provisioned, '@aws-sdk/client-dynamodb@3.518.0'), SDK_V3_REUSE],
    lab: 'applied: the functions bundle SDK v3',
  },
  functionKeepAlive: {
    value: 'both',
    sources: [seed(SEEDS.provisioned, 'keepAlive false in code and environment, then keepAlive true')],
    lab: 'the step runs keep-alive on (the article’s second table); its keep-alive-off table is listed as not reproduced',
  },
  tlsMaxVersion: {
    value: null,
    sources: [TLS13_ROLLOUT],
    lab: 'not known: AWS enabled TLS 1.3 on its endpoints during 2024, the article (March 2024) does not log the version: the lab runs its TLS 1.3',
  },
  memoryMb: {
    value: 256,
    sources: [seed(SEEDS.provisioned, 'Memory Size: 256 MB')],
    lab: 'applied: the step runs at 256 MB',
  },
  region: {
    value: 'ap-northeast-1',
    sources: [seed(SEEDS.provisioned, 'dynamodb.ap-northeast-1.amazonaws.com')],
    lab: REGION_NOT_MODELED,
  },
  clientPlacement: {
    value: 'inside the Lambda function (getTest timed in the handler)',
    sources: [seed(SEEDS.provisioned, 'getTest: NN ms logged by the function')],
    lab: 'applied: the handler times its database call',
  },
  profile: { value: 'in-region', sources: [], lab: SAME_PROFILE },
};

const NEWS_ARTICLE: Conditions = {
  name: SEEDS.newsTop10,
  label: 'the article (2021)',
  year: 2021,
  runtime: {
    value: 'nodejs14.x',
    sources: [seed(SEEDS.newsTop10, 'runtime nodejs14.x')],
    lab: INIT_APPLIED,
  },
  sdk: {
    value: { name: 'AWS SDK for JavaScript v2', keepsAliveByDefault: false },
    sources: [
      seed(SEEDS.newsTop10, 'require("aws-sdk") with an https.Agent({ keepAlive: true })'),
      SDK_V2_REUSE,
    ],
    lab: 'SDK v3 with keep-alive on: the article’s agent kept its connections',
  },
  functionKeepAlive: {
    value: 'enabled',
    sources: [
      seed(
        SEEDS.newsTop10,
        'an https.Agent with keepAlive true for DynamoDB; ioredis client outside the handler',
      ),
    ],
    lab: 'applied: the step runs keep-alive on',
  },
  tlsMaxVersion: {
    value: 'TLSv1.2',
    sources: [TLS13_ROLLOUT, TLS_ROUND_TRIPS],
    lab: `${TLS_APPLIED} (Redis included: whether the article’s REDIS_URL used TLS is not said)`,
  },
  memoryMb: {
    value: 1024,
    sources: [seed(SEEDS.newsTop10, 'memory 1024 MB')],
    lab: 'applied: the step runs at 1024 MB',
  },
  region: {
    value: 'us-west-1',
    sources: [seed(SEEDS.newsTop10, 'Lambda, DynamoDB and Upstash in us-west-1')],
    lab: REGION_NOT_MODELED,
  },
  clientPlacement: {
    value: 'inside the Lambda function (perf_hooks around the query)',
    sources: [seed(SEEDS.newsTop10, 'performance.now() before and after the top-10 query')],
    lab: 'applied: the handler times its database call',
  },
  profile: { value: 'in-region', sources: [], lab: SAME_PROFILE },
};

/** Each seed article's conditions, by seed file. */
export const ARTICLE_CONDITIONS: Readonly<Record<string, Conditions>> = {
  [SEEDS.keepAlive]: KEEP_ALIVE_ARTICLE,
  [SEEDS.qldb]: QLDB_ARTICLE,
  [SEEDS.histograms]: HISTOGRAMS_ARTICLE,
  [SEEDS.provisioned]: PROVISIONED_ARTICLE,
  [SEEDS.newsTop10]: NEWS_ARTICLE,
};

/**
 * The `article` of an experiment that no seed article measured (a question only today has, such as
 * Lambda Managed Instances, GA 2025-11-30): its only conditions are today's, and its rows are lab only.
 */
export const NO_ARTICLE = 'none (no seed article measured it)';

export function articleConditions(article: string): Conditions {
  if (article === NO_ARTICLE) return { ...TODAY, name: NO_ARTICLE, label: 'no article (today)' };
  const c = ARTICLE_CONDITIONS[article];
  if (!c) throw new Error(`no conditions for article ${article}: add them to experiments/conditions.ts`);
  return c;
}

// ---------------------------------------------------------------- what a run applies

/** What the lab changes for a step under some conditions; the rest is recorded, not run. */
export interface AppliedConditions {
  readonly tlsMaxVersion: TlsMaxVersion;
  /** undefined: the step's own memory */
  readonly memoryMb: number | undefined;
  /** A runtime whose published init the cold-start model uses instead of the template's; undefined: the template's */
  readonly initRuntime: string | undefined;
}

/** What a step runs under `c`: its own memory first (an experiment that names the article's), else the conditions'. */
export function applied(c: Conditions, stepMemoryMb: number | undefined): AppliedConditions {
  return {
    // A version the article does not give runs as today's: nothing is invented.
    tlsMaxVersion: c.tlsMaxVersion.value ?? (TODAY.tlsMaxVersion.value as TlsMaxVersion),
    memoryMb: stepMemoryMb ?? c.memoryMb.value ?? undefined,
    // A Node runtime of its own, other than today's: its init is the model's for that runtime.
    initRuntime:
      c.runtime.value?.startsWith('nodejs') && c.runtime.value !== TODAY.runtime.value
        ? c.runtime.value
        : undefined,
  };
}

/** The applied parameters that differ between two conditions for one step, as words; [] runs once. */
export function differences(a: AppliedConditions, b: AppliedConditions): string[] {
  const out: string[] = [];
  const tls = (v: string) => v.replace(/^TLSv/, 'TLS ');
  if (a.tlsMaxVersion !== b.tlsMaxVersion)
    out.push(`${tls(a.tlsMaxVersion)} against ${tls(b.tlsMaxVersion)}`);
  const mb = (v: number | undefined) => (v === undefined ? 'the template’s memory' : `${v} MB`);
  if (a.memoryMb !== b.memoryMb) out.push(`${mb(a.memoryMb)} against ${mb(b.memoryMb)}`);
  if (a.initRuntime !== b.initRuntime) {
    const rt = (v: string | undefined) => `${v ?? TODAY.runtime.value}’s init`;
    out.push(`${rt(a.initRuntime)} against ${rt(b.initRuntime)}`);
  }
  return out;
}

/**
 * The keep-alive variant a function runs when a step asks for the SDK's default: SDK v2 opened a
 * connection per call unless the article's function enabled keep-alive; SDK v3 keeps them. The
 * same KEEP_ALIVE switch as the keep-alive variants, no second mechanism.
 */
export function defaultVariant(c: Conditions): KeepAliveVariant {
  if (c.functionKeepAlive.value === 'enabled') return 'on';
  return c.sdk.value?.keepsAliveByDefault === false ? 'off' : 'on';
}

/** The environment a function gets under `c` for a variant ('default': the SDK's own behaviour). */
export function functionEnv(c: Conditions, variant: KeepAliveVariant | 'default'): Record<string, string> {
  const tls = applied(c, undefined).tlsMaxVersion;
  return {
    KEEP_ALIVE: variant === 'default' ? defaultVariant(c) : variant,
    LAB_TLS_MAX_VERSION: tls,
  };
}

/** The conditions as report.json records them: every parameter with its value, sources and what the lab did. */
export function conditionsRecord(c: Conditions): ConditionsRecord {
  const show = (v: unknown): string =>
    v === null
      ? 'not stated'
      : typeof v === 'object'
        ? `${(v as SdkBehaviour).name}${(v as SdkBehaviour).keepsAliveByDefault ? ', keeps connections by default' : ', a new connection per call by default'}`
        : String(v);
  const params: [string, ConditionParameter<unknown>][] = [
    ['runtime', c.runtime],
    ['SDK', c.sdk],
    ['keep-alive in the function', c.functionKeepAlive],
    ['TLS, newest negotiated', c.tlsMaxVersion],
    ['memory, MB', c.memoryMb],
    ['region', c.region],
    ['client placement', c.clientPlacement],
    ['network profile', c.profile],
  ];
  return {
    name: c.name,
    label: c.label,
    year: c.year,
    parameters: params.map(([parameter, p]) => ({
      parameter,
      value: show(p.value),
      sources: p.sources.map((s) => `${s.what}${s.url ? ` (${s.url})` : s.seed ? ` (seed ${s.seed})` : ''}`),
      lab: p.lab,
    })),
  };
}

/** What an experiment did not run under its article's conditions, and why: one line each. */
export function conditionNotes(c: Conditions, where: 'local' | 'aws', sideRuns: readonly string[]): string[] {
  const out: string[] = [];
  if (where === 'aws')
    out.push(
      'the deployed stack runs what was deployed, today’s conditions: both lab columns are that one run (the TLS pin and the article’s memory are local-lab settings)',
    );
  if (sideRuns.length > 0)
    out.push(
      `${sideRuns.join(', ')} ran once, under today’s conditions (Node’s TLS, the step’s own memory): rows read from them show that run in both columns`,
    );
  out.push(
    `runtime ${c.runtime.value ?? 'not stated'} against ${TODAY.runtime.value}: not applied (the environments run the lab’s Node; the runtime’s own init belongs to the cold-start model)`,
  );
  if (c.tlsMaxVersion.value === null) out.push(`TLS: ${c.tlsMaxVersion.lab}`);
  if (c.region.value !== null) out.push(`region ${c.region.value}: ${REGION_NOT_MODELED}`);
  return out;
}

/**
 * The load runs a plan makes on the local lab (for the wall-time estimate): a step whose
 * conditions differ runs twice, its second run without the targets that have no today.
 */
export function loadRuns(article: string, plan: readonly StepPlan[]): StepPlan[] {
  const c = articleConditions(article);
  return plan.flatMap((s) => {
    if (s.todayOnly || differences(applied(c, s.memoryMb), applied(TODAY, s.memoryMb)).length === 0)
      return [s];
    const today = s.targets.filter((t) => !s.notToday?.targets.includes(t));
    return today.length > 0 ? [s, { ...s, targets: today }] : [s];
  });
}
