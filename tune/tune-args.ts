/**
 * `npm run tune` arguments. Everything is validated here, before a client exists, so a
 * typo costs no AWS call (and no Step Functions execution).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AWS_OPTION_SPECS,
  AWS_OPTIONS_HELP,
  type AwsOptions,
  type ResolveDeps,
  resolveAwsOptions,
  UsageError,
} from '../aws/aws-options';
import { type LabFunction, labFunctions } from '../core/lab-functions';
import { loadPriceFile } from '../core/price-file';
import { MEMORY_MAX_MB, MEMORY_MIN_MB, TARGETS } from '../lib/config';
import { networkOptions, seedOption } from '../local/cli/options';
import { DEFAULT_PROFILE } from '../local/network/profiles';

export const STRATEGIES = ['cost', 'speed', 'balanced'] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const DEFAULT_POWER_VALUES: readonly number[] = [128, 256, 512, 1024, 1769];
export const DEFAULT_NUM = 20;
/** Power Tuning refuses fewer than 5 invocations per power value. */
export const MIN_NUM = 5;
/** Serial invocations must fit Power Tuning's per-task timeout (300 s by default). */
export const MAX_NUM = 1000;
export const DEFAULT_OUT_DIR = 'results/tuning';
export const DEFAULT_TIMEOUT_S = 1200;
const MAX_TIMEOUT_S = 4 * 3600;

export interface TuneOptions {
  /** As given: a function key (`dynamodb-get`) or a deployed function name. */
  readonly function: string;
  readonly powerValues: readonly number[];
  readonly num: number;
  readonly strategy: Strategy;
  /** Set only with --payload; otherwise a payload is built per function (see default-payload.ts). */
  readonly payload?: unknown;
  readonly outDir: string;
  readonly timeoutMs: number;
  readonly aws: AwsOptions;
}

/** `--target local`: the local tuner's options (tune/local-tune.ts), without its log. */
export interface LocalTuneArgs {
  readonly function: string;
  readonly powerValues: readonly number[];
  readonly num: number;
  readonly strategy: Strategy;
  readonly balancedWeight?: number;
  readonly discardTopBottom?: number;
  readonly payload?: unknown;
  readonly outDir: string;
  /** The full-cost line's price file, resolved and already validated. @default core/prices/us-east-1.json */
  readonly prices?: string;
  readonly lab: {
    readonly profile?: string;
    readonly rttMs?: number;
    readonly rttByTarget?: Readonly<Partial<Record<(typeof TARGETS)[number], number>>>;
    readonly seed?: number;
    readonly nodePath?: string;
  };
}

export type ParsedTuneArgs =
  | { readonly help: true }
  | { readonly help: false; readonly options: TuneOptions; readonly local?: undefined }
  | { readonly help: false; readonly local: LocalTuneArgs; readonly options?: undefined };

/** Every key the app can deploy, from every target and both keep-alive layouts. */
export function possibleLabFunctions(): LabFunction[] {
  return [...labFunctions(TARGETS, ['on']), ...labFunctions(TARGETS, ['on', 'off'])];
}

/** An example function key: the registry's first target's, `<target>-get` before any registered. */
export const exampleKey = (operation: string): string => `${TARGETS[0] ?? '<target>'}-${operation}`;

export const TUNE_HELP = `Usage: npm run tune -- --function NAME [options]
       npm run tune -- --target local --function NAME [options]

Runs the deployed AWS Lambda Power Tuning state machine (4.x) on one lab function, shows
its progress, prints the chosen memory, cost, duration and visualization URL, and saves
the whole result as JSON. The chosen memory is not applied: set it with
\`npx cdk deploy --all -c memorySize=<MB>\`.

With --target local it does the same on the local lab, by Power Tuning 4.4.0's rules: for
each power value new environments at that memory, NUM invocations in series, durations from
the REPORT lines (Init Duration included), a trimmed mean, Lambda's price per ms, the
strategy's pick; the result has Power Tuning's output shape.

Options:
  --function NAME        function key: <target>-<operation>[-keepalive-on|-keepalive-off]
                         or its deployed function name
  --power-values LIST    comma-separated memory sizes in MB, ${MEMORY_MIN_MB}..${MEMORY_MAX_MB}
                         (default ${DEFAULT_POWER_VALUES.join(',')}; new accounts may be capped at 3008)
  --num N                invocations per power value, ${MIN_NUM}..${MAX_NUM} (default ${DEFAULT_NUM})
  --strategy S           cost | speed | balanced (default cost)
  --payload JSON         the event for every invocation (default: built per function, below)
  --out DIR              where the JSON result goes (default ${DEFAULT_OUT_DIR})
  --timeout SECONDS      stop waiting, and stop the execution, after this long (default ${DEFAULT_TIMEOUT_S})
  --target aws|local     the deployed state machine (default) or the local lab
  -h, --help             this text
${AWS_OPTIONS_HELP}
Local lab (--target local):
  --profile NAME         network profile (default ${DEFAULT_PROFILE}); here not an AWS profile
  --rtt MS|T=MS,...      round trip instead of the profile's
  --seed N               seeds the service-time draws (default 1)
  --balanced-weight W    0..1, the balanced strategy's weight of cost (default 0.5)
  --discard-top-bottom F 0..0.4, the share dropped at each end before averaging (default 0.2)
  --node PATH            Node executable of the environments (default: Lambda's Node 24, pinned)
  --prices FILE          price file of the full-cost line (default core/prices/us-east-1.json;
                         core/prices/ holds Lambda's and API Gateway's per region, each with unit,
                         source, date; each target's prices for the file's region join them)

Default payload:
  get functions     A Person with GovId power-tuning-<target> is created first by invoking the
                    matching create function once (201, or 409 when it already exists), then
                    every invocation is a GET event for that GovId: each one reads a real item.
  create functions  The same Person is created once first, then every invocation POSTs it again:
                    each one evaluates the conditional write against the database and answers
                    409. Power Tuning's weighted payloads cannot give every invocation its own
                    GovId: each power value replays the same list, so only the power value that
                    ran first would measure successful writes. One known Person keeps every power
                    value on the same path; pass --payload to measure something else.

Invocations run in series (parallelInvocation false), as the lab's steady load does.
Ctrl-C stops the execution (StopExecution) before exiting; so does --timeout.
Exit status: 0 done, 1 failed, 2 bad arguments, 130 interrupted.`;

function parsePowerValues(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const values: number[] = [];
  for (const p of parts) {
    if (!/^\d+$/.test(p)) {
      throw new UsageError(
        `--power-values: ${JSON.stringify(p)} is not a whole number of MB (e.g. 128,256,512)`,
      );
    }
    const mb = Number(p);
    if (mb < MEMORY_MIN_MB || mb > MEMORY_MAX_MB) {
      throw new UsageError(`--power-values: ${mb} MB is outside ${MEMORY_MIN_MB}..${MEMORY_MAX_MB}`);
    }
    if (!values.includes(mb)) values.push(mb);
  }
  return values;
}

function parseInteger(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

function checkFunctionName(name: string, stackPrefix: string): void {
  if (possibleLabFunctions().some((f) => f.key === name)) return;
  // CloudFormation names the functions `<stack>-<LogicalId>-<suffix>`.
  if (name.startsWith(`${stackPrefix}-`) && /^[A-Za-z0-9_-]{1,64}$/.test(name)) return;
  throw new UsageError(
    `unknown function ${JSON.stringify(name)}: expected <${TARGETS.join('|')}>-<create|get>[-keepalive-on|-keepalive-off] ` +
      `(e.g. ${exampleKey('get')}) or a deployed name starting with ${stackPrefix}-`,
  );
}

const TUNE_OPTION_SPECS = {
  ...AWS_OPTION_SPECS,
  function: { type: 'string' },
  'power-values': { type: 'string' },
  num: { type: 'string' },
  strategy: { type: 'string' },
  payload: { type: 'string' },
  out: { type: 'string' },
  timeout: { type: 'string' },
  target: { type: 'string' },
  rtt: { type: 'string' },
  seed: { type: 'string' },
  'balanced-weight': { type: 'string' },
  'discard-top-bottom': { type: 'string' },
  node: { type: 'string' },
  prices: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: TUNE_OPTION_SPECS })
      .values;
  } catch (e) {
    // parseArgs messages name the flag; keep the first sentence, drop its hint about positionals.
    throw new UsageError((e as Error).message.split('\n')[0].replace(/\. To specify .*$/, ''));
  }
}

export function parseTuneArgs(argv: readonly string[], deps: ResolveDeps = {}): ParsedTuneArgs {
  const values = parseFlags(argv);
  if (values.help) return { help: true };

  const name = values.function?.trim();
  if (!name)
    throw new UsageError(`--function is required (e.g. --function ${exampleKey('get')}); see --help`);
  const powerValues =
    values['power-values'] === undefined
      ? [...DEFAULT_POWER_VALUES]
      : parsePowerValues(values['power-values']);
  const num = values.num === undefined ? DEFAULT_NUM : parseInteger('--num', values.num, MIN_NUM, MAX_NUM);
  const strategy = (values.strategy ?? 'cost').trim();
  if (!(STRATEGIES as readonly string[]).includes(strategy)) {
    throw new UsageError(
      `--strategy must be one of ${STRATEGIES.join(', ')}, got ${JSON.stringify(strategy)}`,
    );
  }
  let payload: unknown;
  if (values.payload !== undefined) {
    try {
      payload = JSON.parse(values.payload);
    } catch (e) {
      throw new UsageError(`--payload is not JSON: ${(e as Error).message}`);
    }
  }
  const timeoutS =
    values.timeout === undefined
      ? DEFAULT_TIMEOUT_S
      : parseInteger('--timeout', values.timeout, 60, MAX_TIMEOUT_S);
  const outDir = values.out ?? DEFAULT_OUT_DIR;
  if (outDir.trim() === '') throw new UsageError('--out must name a directory');

  const target = values.target ?? 'aws';
  if (target !== 'aws' && target !== 'local')
    throw new UsageError(`--target must be aws or local, got ${JSON.stringify(target)}`);
  const localOnly = ['rtt', 'seed', 'balanced-weight', 'discard-top-bottom', 'node', 'prices'] as const;
  if (target === 'local') {
    for (const flag of ['region', 'stack-prefix', 'timeout'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} is for the deployed stack, not --target local`);
    if (!possibleLabFunctions().some((f) => f.key === name))
      throw new UsageError(
        `unknown function ${JSON.stringify(name)}: --target local takes a function key (e.g. ${exampleKey('get')}, ${exampleKey('get')}-keepalive-off)`,
      );
    const fraction = (flag: string, text: string | undefined, max: number): number | undefined => {
      if (text === undefined) return undefined;
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > max)
        throw new UsageError(`--${flag} must be a number from 0 to ${max}, got ${JSON.stringify(text)}`);
      return n;
    };
    // A bad price file is a usage error before the lab starts, checked as load checks it.
    const prices = values.prices === undefined ? undefined : resolve(values.prices);
    if (prices !== undefined) {
      try {
        loadPriceFile(prices);
      } catch (e) {
        throw new UsageError(`--prices: ${(e as Error).message}`);
      }
    }
    return {
      help: false,
      local: {
        function: name,
        powerValues,
        num,
        strategy: strategy as Strategy,
        balancedWeight: fraction('balanced-weight', values['balanced-weight'], 1),
        discardTopBottom: fraction('discard-top-bottom', values['discard-top-bottom'], 0.4),
        ...(values.payload !== undefined ? { payload } : {}),
        outDir,
        ...(prices !== undefined ? { prices } : {}),
        lab: {
          ...networkOptions(values.profile, values.rtt),
          seed: seedOption(values.seed),
          nodePath: values.node,
        },
      },
    };
  }
  for (const flag of localOnly)
    if (values[flag] !== undefined) throw new UsageError(`--${flag} is for --target local`);

  const aws = resolveAwsOptions(values, deps);
  checkFunctionName(name, aws.stackPrefix);
  return {
    help: false,
    options: {
      function: name,
      powerValues,
      num,
      strategy: strategy as Strategy,
      ...(values.payload !== undefined ? { payload } : {}),
      outDir,
      timeoutMs: timeoutS * 1000,
      aws,
    },
  };
}
