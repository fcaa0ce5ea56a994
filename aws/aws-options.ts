/**
 * The options every command that talks to AWS shares: --region, --profile, --stack-prefix.
 * Region and profile fall back the way the AWS CLI does, so `npm run tune` works in the
 * same shell as `aws ...` and `npx cdk deploy`:
 *   region:  --region, AWS_REGION, AWS_DEFAULT_REGION, then `region` of the profile in the
 *            config file (AWS_CONFIG_FILE or ~/.aws/config)
 *   profile: --profile, AWS_PROFILE, else `default`
 * Nothing here calls AWS: resolving options can fail only with a UsageError.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { defaultProvider } from '@aws-sdk/credential-provider-node';

export const DEFAULT_STACK_PREFIX = 'LatencyLab';

import { UsageError } from '../core/errors';

export { UsageError };

/** `node:util` parseArgs specs of the common options; commands spread them into their own. */
export const AWS_OPTION_SPECS = {
  region: { type: 'string' },
  profile: { type: 'string' },
  'stack-prefix': { type: 'string' },
} as const;

export const AWS_OPTIONS_HELP = `AWS options:
  --region R          region of the stacks (default: AWS_REGION, AWS_DEFAULT_REGION, then the profile's region)
  --profile P         shared config/credentials profile (default: AWS_PROFILE, then "default")
  --stack-prefix S    prefix of the stack names (default: ${DEFAULT_STACK_PREFIX})`;

export interface AwsOptionValues {
  readonly region?: string;
  readonly profile?: string;
  readonly 'stack-prefix'?: string;
}

export type RegionSource = '--region' | 'AWS_REGION' | 'AWS_DEFAULT_REGION' | 'config file';

export interface AwsOptions {
  readonly region: string;
  readonly regionSource: RegionSource;
  /** Undefined when neither --profile nor AWS_PROFILE names one: the SDK's default chain applies. */
  readonly profile?: string;
  readonly stackPrefix: string;
}

export interface ResolveDeps {
  readonly env?: NodeJS.ProcessEnv;
  /** Returns the config file's text, or undefined when it does not exist. */
  readonly readConfigFile?: (path: string) => string | undefined;
  readonly homeDir?: string;
}

const REGION_PATTERN = /^[a-z]{2,}(-[a-z]+)+-\d+$/;
const STACK_PREFIX_PATTERN = /^[A-Za-z][A-Za-z0-9-]{0,99}$/;

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

const blank = (v: string | undefined): v is undefined => v === undefined || v.trim() === '';

/**
 * The `region` of one profile in an AWS config file. Sections are `[default]` or
 * `[profile NAME]`; indented lines belong to nested settings (e.g. `s3 =`) and are skipped.
 */
export function regionFromConfigFile(text: string, profile: string): string | undefined {
  let inProfile = false;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*([#;]|$)/.test(raw)) continue;
    const section = /^\[\s*([^\]]+?)\s*\]/.exec(raw);
    if (section) {
      const name = section[1].replace(/^profile\s+/, '');
      inProfile = name === profile;
      continue;
    }
    if (!inProfile || /^\s/.test(raw)) continue;
    const kv = /^([A-Za-z0-9_]+)\s*=\s*(.*?)\s*$/.exec(raw);
    if (kv && kv[1] === 'region' && kv[2] !== '') return kv[2];
  }
  return undefined;
}

export function resolveAwsOptions(values: AwsOptionValues, deps: ResolveDeps = {}): AwsOptions {
  const env = deps.env ?? process.env;
  const profile = blank(values.profile)
    ? blank(env.AWS_PROFILE)
      ? undefined
      : env.AWS_PROFILE
    : values.profile;
  const stackPrefix = values['stack-prefix'] ?? DEFAULT_STACK_PREFIX;
  if (!STACK_PREFIX_PATTERN.test(stackPrefix)) {
    throw new UsageError(
      `--stack-prefix ${JSON.stringify(stackPrefix)} is not a stack name prefix: a letter, then letters, digits and '-'`,
    );
  }

  let region: string | undefined;
  let regionSource: RegionSource = '--region';
  if (values.region !== undefined) {
    region = values.region.trim();
  } else if (!blank(env.AWS_REGION)) {
    region = env.AWS_REGION.trim();
    regionSource = 'AWS_REGION';
  } else if (!blank(env.AWS_DEFAULT_REGION)) {
    region = env.AWS_DEFAULT_REGION.trim();
    regionSource = 'AWS_DEFAULT_REGION';
  } else {
    const configPath = env.AWS_CONFIG_FILE ?? join(deps.homeDir ?? homedir(), '.aws', 'config');
    const text = (deps.readConfigFile ?? readIfExists)(configPath);
    region = text === undefined ? undefined : regionFromConfigFile(text, profile ?? 'default');
    regionSource = 'config file';
    if (region === undefined) {
      const p = profile ?? 'default';
      throw new UsageError(
        `no AWS region: pass --region, set AWS_REGION, or set one for profile "${p}" ` +
          `(aws configure set region <region> --profile ${p}); looked in ${configPath}`,
      );
    }
  }
  if (!REGION_PATTERN.test(region)) {
    throw new UsageError(
      `region ${JSON.stringify(region)} (from ${regionSource}) is not an AWS region name like eu-west-1`,
    );
  }
  return { region, regionSource, profile, stackPrefix };
}

export type CredentialProvider = ReturnType<typeof defaultProvider>;

export interface SdkClientConfig {
  readonly region: string;
  readonly credentials: CredentialProvider;
  /** Also given to the client so its other profile settings (retries, endpoints) apply. */
  readonly profile?: string;
}

/**
 * Client config for any v3 client. The credentials are the SDK's Node default chain
 * (env, SSO, ini, process, web identity, container/instance metadata) for that profile;
 * it resolves lazily, so building the config never calls AWS.
 */
export function sdkClientConfig(options: AwsOptions): SdkClientConfig {
  // Required here, not imported at the top: every CLI parses its options through this module,
  // and the credential chain (~100 SDK modules) must not load for --help or a typo.
  const credentialProvider: { defaultProvider: typeof defaultProvider } = createRequire(import.meta.url)(
    '@aws-sdk/credential-provider-node',
  );
  const credentials = credentialProvider.defaultProvider(options.profile ? { profile: options.profile } : {});
  return options.profile
    ? { region: options.region, credentials, profile: options.profile }
    : { region: options.region, credentials };
}
