import { describe, expect, it } from 'vitest';
import { regionFromConfigFile, resolveAwsOptions, sdkClientConfig, UsageError } from '../../aws/aws-options';

const CONFIG = `
[default]
region = eu-west-1
output = json

# a comment
[profile lab]
s3 =
  region = should-not-count
region=us-east-2

[profile empty]
output = text
`;

const noFile = () => undefined;

describe('resolveAwsOptions', () => {
  it('takes --region, --profile and --stack-prefix first', () => {
    const o = resolveAwsOptions(
      { region: 'ap-southeast-2', profile: 'lab', 'stack-prefix': 'Mine' },
      { env: { AWS_REGION: 'eu-west-1', AWS_PROFILE: 'other' }, readConfigFile: noFile },
    );
    expect(o).toEqual({
      region: 'ap-southeast-2',
      regionSource: '--region',
      profile: 'lab',
      stackPrefix: 'Mine',
    });
  });

  it('falls back to AWS_REGION, then AWS_DEFAULT_REGION, like the AWS CLI', () => {
    expect(
      resolveAwsOptions({}, { env: { AWS_REGION: 'eu-north-1', AWS_DEFAULT_REGION: 'us-west-2' } }),
    ).toMatchObject({
      region: 'eu-north-1',
      regionSource: 'AWS_REGION',
      stackPrefix: 'LatencyLab',
    });
    expect(resolveAwsOptions({}, { env: { AWS_DEFAULT_REGION: 'us-west-2' } })).toMatchObject({
      region: 'us-west-2',
      regionSource: 'AWS_DEFAULT_REGION',
    });
  });

  it("then reads the profile's region from the config file (AWS_PROFILE, else default)", () => {
    const read = (path: string) => (path === '/cfg' ? CONFIG : undefined);
    expect(resolveAwsOptions({}, { env: { AWS_CONFIG_FILE: '/cfg' }, readConfigFile: read })).toMatchObject({
      region: 'eu-west-1',
      regionSource: 'config file',
      profile: undefined,
    });
    expect(
      resolveAwsOptions({}, { env: { AWS_CONFIG_FILE: '/cfg', AWS_PROFILE: 'lab' }, readConfigFile: read }),
    ).toMatchObject({ region: 'us-east-2', profile: 'lab' });
    expect(
      resolveAwsOptions(
        {},
        {
          env: {},
          homeDir: '/home/u',
          readConfigFile: (p) => (p === '/home/u/.aws/config' ? CONFIG : undefined),
        },
      ).region,
    ).toBe('eu-west-1');
  });

  it('explains how to set a region when none can be found', () => {
    const read = () => CONFIG;
    expect(() => resolveAwsOptions({ profile: 'empty' }, { env: {}, readConfigFile: read })).toThrow(
      /no AWS region: pass --region, set AWS_REGION, or set one for profile "empty"/,
    );
    expect(() => resolveAwsOptions({}, { env: {}, readConfigFile: noFile })).toThrow(UsageError);
  });

  it('rejects a malformed region or stack prefix', () => {
    expect(() => resolveAwsOptions({ region: '--profile' }, { env: {} })).toThrow(/not an AWS region name/);
    expect(() =>
      resolveAwsOptions({ region: 'eu-west-1', 'stack-prefix': 'bad prefix' }, { env: {} }),
    ).toThrow(/--stack-prefix/);
  });
});

describe('regionFromConfigFile', () => {
  it('ignores nested settings and other profiles', () => {
    expect(regionFromConfigFile(CONFIG, 'lab')).toBe('us-east-2');
    expect(regionFromConfigFile(CONFIG, 'missing')).toBeUndefined();
  });
});

describe('sdkClientConfig', () => {
  it('builds region and a lazy credential provider for the profile', () => {
    const c = sdkClientConfig({
      region: 'eu-west-1',
      regionSource: '--region',
      profile: 'lab',
      stackPrefix: 'LatencyLab',
    });
    expect(c.region).toBe('eu-west-1');
    expect(c.profile).toBe('lab');
    expect(typeof c.credentials).toBe('function');
    const d = sdkClientConfig({ region: 'eu-west-1', regionSource: '--region', stackPrefix: 'LatencyLab' });
    expect(d).not.toHaveProperty('profile');
  });
});
