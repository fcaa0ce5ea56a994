import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../core/lab-functions';
import { PROJECT_ROOT } from '../../core/paths';
import { ConfigError, parseConfig } from '../../lib/config';

const defaults: Record<string, unknown> = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8'),
).context;
const parse = (overrides: Record<string, unknown>) =>
  parseConfig((k) => (k in overrides ? overrides[k] : defaults[k]));

describe('context flags', () => {
  it('cdk.json defaults give the documented config', () => {
    const c = parse({});
    expect(c).toMatchObject({
      targets: ['dynamodb'],
      keepAlive: 'on',
      keepAliveVariants: ['on'],
      provisionedConcurrency: 0,
      accountConcurrency: 1000,
      memorySize: 512,
      tracing: false,
      powerTuning: true,
      sourceMaps: false,
      removalPolicy: 'destroy',
      logRetentionDays: 7,
      powerTuningVersion: '4.4.0',
    });
  });

  it('operations: every one by default; a comma list deploys those only, in the lab’s order; an unknown one is refused', () => {
    expect(parse({}).operations).toEqual(OPERATIONS);
    expect(parse({ operations: 'get, create' }).operations).toEqual(['create', 'get']);
    expect(() => parse({ operations: 'get,delete' })).toThrow(ConfigError);
    expect(() => parse({ operations: ',' })).toThrow(ConfigError);
  });

  it('accepts the strings -c passes', () => {
    const c = parse({
      targets: 'qldb, dynamodb',
      keepAlive: 'both',
      provisionedConcurrency: '3',
      memorySize: '1769',
      tracing: 'true',
      powerTuning: 'false',
    });
    expect(c.targets).toEqual(['dynamodb', 'qldb']);
    expect(c.keepAliveVariants).toEqual(['on', 'off']);
    expect(c.provisionedConcurrency).toBe(3);
    expect(c.memorySize).toBe(1769);
    expect(c.tracing).toBe(true);
    expect(c.powerTuning).toBe(false);
  });

  it.each([
    ['keepAlive', 'maybe', /keepAlive="maybe".*one of on, off, both/],
    ['provisionedConcurrency', '-1', /provisionedConcurrency="-1".*integer from 0/],
    ['provisionedConcurrency', '1.5', /provisionedConcurrency="1.5"/],
    ['accountConcurrency', '0', /accountConcurrency="0".*from 1 to 1000000/],
    ['accountConcurrency', 'many', /accountConcurrency="many"/],
    ['targets', 'fauna', /targets="fauna".*dynamodb, qldb/],
    ['targets', 'dynamodb,fauna', /targets="dynamodb,fauna"/],
    ['targets', '', /targets="".*comma list/],
    ['memorySize', '64', /memorySize="64".*128 to 10240/],
    ['memorySize', '10241', /memorySize="10241"/],
    ['memorySize', 'big', /memorySize="big"/],
    ['tracing', 'yes', /tracing="yes".*true or false/],
    ['powerTuning', '1', /powerTuning="1".*true or false/],
    ['sourceMaps', 'on', /sourceMaps="on"/],
    ['removalPolicy', 'snapshot', /removalPolicy="snapshot".*destroy, retain/],
    ['logRetentionDays', '8', /logRetentionDays="8".*one of 1, 3, 5, 7/],
    ['powerTuningVersion', 'latest', /powerTuningVersion="latest".*semantic version/],
    ['apiRateLimit', '0', /apiRateLimit="0".*from 1 to 10000/],
    ['apiBurstLimit', 'lots', /apiBurstLimit="lots"/],
    [
      'redisSecretArn',
      'latency-lab/redis',
      /redisSecretArn="latency-lab\/redis".*complete Secrets Manager secret ARN/,
    ],
    [
      'redisSecretArn',
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:latency-lab/redis',
      /redisSecretArn=.*<name>-<6 characters>/,
    ],
    ['redisSecretArn', 'arn:aws:ssm:us-east-1:123456789012:parameter/redis-AbCdEf', /redisSecretArn=/],
  ])('%s=%s fails naming the flag, the value and what is allowed', (flag, value, message) => {
    expect(() => parse({ [flag]: value })).toThrowError(ConfigError);
    expect(() => parse({ [flag]: value })).toThrowError(message);
  });

  describe('provisionedConcurrency x functions must leave Lambda its 100 unreserved', () => {
    it.each<[Record<string, string>, number, number]>([
      // [flags, functions deployed (each target's operations x variants: DynamoDB has put10 too;
      // view and top10 on DynamoDB, Redis and DSQL with keep-alive on), largest accepted value]
      [{ targets: 'dynamodb', keepAlive: 'on' }, 8, 112],
      [{ targets: 'dynamodb', keepAlive: 'both' }, 14, 64],
      [{ targets: 'dynamodb,qldb', keepAlive: 'both' }, 24, 37],
      [{ targets: 'dynamodb,qldb', keepAlive: 'off', accountConcurrency: '5000' }, 11, 445],
    ])('%o deploys %i functions: accepts %i each and refuses one more', (flags, functions, max) => {
      expect(parse({ ...flags, provisionedConcurrency: String(max) }).provisionedConcurrency).toBe(max);
      const over = { ...flags, provisionedConcurrency: String(max + 1) };
      const bound = Number(flags.accountConcurrency ?? 1000) - 100;
      let message = '';
      try {
        parse(over);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message).toBe(
        `Invalid context flag provisionedConcurrency="${max + 1}": expected an integer from 0 to ${max}: ` +
          `${functions} functions x provisionedConcurrency must be <= ${bound} ` +
          `(accountConcurrency ${flags.accountConcurrency ?? 1000} - 100 Lambda keeps unreserved)`,
      );
      expect(message).not.toContain('\n');
    });

    it('the old upper bound of 1000 per function is refused with the default account limit', () => {
      expect(() => parse({ provisionedConcurrency: '1000' })).toThrowError(
        /provisionedConcurrency="1000".*8 functions x provisionedConcurrency must be <= 900/,
      );
    });

    it('an account limit at or under 100 allows no provisioned concurrency at all', () => {
      expect(parse({ accountConcurrency: '10', provisionedConcurrency: '0' }).provisionedConcurrency).toBe(0);
      expect(() => parse({ accountConcurrency: '10', provisionedConcurrency: '1' })).toThrowError(
        /from 0 to 0: 8 functions x provisionedConcurrency must be <= 0 \(accountConcurrency 10 - 100/,
      );
    });
  });

  describe('redisSecretArn', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:latency-lab/redis-AbCdEf';

    it('is empty by default and not needed without the redis target', () => {
      expect(parse({}).targetContext.redisSecretArn).toBe('');
      expect(parse({ targets: 'dynamodb,qldb' }).targetContext.redisSecretArn).toBe('');
    });

    it('takes a complete secret ARN with redis targeted', () => {
      const c = parse({ targets: 'dynamodb,redis', redisSecretArn: ` ${arn} ` });
      expect(c.targets).toEqual(['dynamodb', 'redis']);
      expect(c.targetContext.redisSecretArn).toBe(arn);
    });

    it('redis targeted without it fails with one line naming the flag', () => {
      let message = '';
      try {
        parse({ targets: 'dynamodb,redis' });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message).toBe(
        'Invalid context flag redisSecretArn="": expected a complete Secrets Manager secret ARN ' +
          '(arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), required when targets includes redis',
      );
    });
  });

  describe('prewarmConnection', () => {
    it('is false by default (cdk.json), and false where an older cdk.json lacks it', () => {
      expect(defaults.prewarmConnection).toBe(false);
      expect(parse({}).prewarmConnection).toBe(false);
      expect(parse({ prewarmConnection: undefined }).prewarmConnection).toBe(false);
    });

    it('takes true and false as -c strings or JSON booleans', () => {
      expect(parse({ prewarmConnection: 'true' }).prewarmConnection).toBe(true);
      expect(parse({ prewarmConnection: true }).prewarmConnection).toBe(true);
      expect(parse({ prewarmConnection: 'false' }).prewarmConnection).toBe(false);
    });

    it('a bad value fails with one line naming the flag', () => {
      expect(() => parse({ prewarmConnection: 'on' })).toThrow(
        new ConfigError('prewarmConnection', 'on', 'true or false'),
      );
      expect(() => parse({ prewarmConnection: 'on' })).toThrow(
        'Invalid context flag prewarmConnection="on": expected true or false',
      );
    });
  });

  describe('compute=managed-instances (docs/managed-instances.md cites each limit)', () => {
    const mi = (o: Record<string, unknown> = {}) =>
      parse({ compute: 'managed-instances', memorySize: '2048', ...o });
    const flagOf = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        if (e instanceof ConfigError) return /flag (\w+)=/.exec(e.message)?.[1] ?? e.message;
        throw e;
      }
      return 'no error';
    };

    it('is standard by default (cdk.json), and standard where an older cdk.json lacks it', () => {
      expect(defaults.compute).toBe('standard');
      expect(parse({}).compute).toBe('standard');
      expect(parse({}).managedInstances).toBeUndefined();
      const older = { ...defaults };
      for (const k of Object.keys(older))
        if (k === 'compute' || k.startsWith('managedInstances')) delete older[k];
      const c = parseConfig((k) => older[k]);
      expect(c.compute).toBe('standard');
      expect(c.managedInstances).toBeUndefined();
    });

    it('takes its companion flags as -c strings; blank ones leave Lambda its defaults', () => {
      expect(mi().managedInstances).toEqual({ instanceTypes: [] });
      expect(
        mi({
          managedInstancesMaxConcurrency: '64',
          managedInstancesMemoryGiBPerVCpu: '4',
          managedInstancesTypes: 'm7g.xlarge, c7g.large,m7g.xlarge',
          managedInstancesMaxVCpu: '12',
          memorySize: '4096',
        }).managedInstances,
      ).toEqual({
        maxConcurrency: 64,
        memoryGiBPerVCpu: 4,
        instanceTypes: ['c7g.large', 'm7g.xlarge'],
        maxVCpu: 12,
      });
    });

    it('refuses provisioned concurrency, which Managed Instances do not use', () => {
      expect(() => mi({ provisionedConcurrency: '2' })).toThrow(ConfigError);
      expect(flagOf(() => mi({ provisionedConcurrency: '2' }))).toBe('provisionedConcurrency');
      expect(mi({ provisionedConcurrency: '0' }).provisionedConcurrency).toBe(0);
    });

    it('refuses less memory than 2048 MB, or than one vCPU at the chosen memory per vCPU', () => {
      expect(flagOf(() => parse({ compute: 'managed-instances' }))).toBe('memorySize');
      expect(flagOf(() => mi({ memorySize: '2047' }))).toBe('memorySize');
      expect(flagOf(() => mi({ managedInstancesMemoryGiBPerVCpu: '4' }))).toBe('memorySize');
      expect(mi({ managedInstancesMemoryGiBPerVCpu: '4', memorySize: '4096' }).memorySize).toBe(4096);
    });

    it('refuses values outside the API ranges: concurrency 1-1600, 2-8 GiB per vCPU, 12-15000 vCPUs', () => {
      expect(flagOf(() => mi({ managedInstancesMaxConcurrency: '0' }))).toBe(
        'managedInstancesMaxConcurrency',
      );
      expect(flagOf(() => mi({ managedInstancesMaxConcurrency: '1601' }))).toBe(
        'managedInstancesMaxConcurrency',
      );
      expect(mi({ managedInstancesMaxConcurrency: '1600' }).managedInstances?.maxConcurrency).toBe(1600);
      for (const bad of ['1.5', '8.5', 'x', '0x4'])
        expect(
          flagOf(() => mi({ managedInstancesMemoryGiBPerVCpu: bad })),
          bad,
        ).toBe('managedInstancesMemoryGiBPerVCpu');
      expect(mi({ managedInstancesMemoryGiBPerVCpu: '2.0' }).managedInstances?.memoryGiBPerVCpu).toBe(2);
      expect(flagOf(() => mi({ managedInstancesMaxVCpu: '11' }))).toBe('managedInstancesMaxVCpu');
    });

    it('takes arm64 C, M and R instance types of .large and up only (the functions are arm64)', () => {
      for (const bad of ['m7i.large', 't4g.small', 'm7g.medium', 'g5g.xlarge', 'm7g'])
        expect(
          flagOf(() => mi({ managedInstancesTypes: bad })),
          bad,
        ).toBe('managedInstancesTypes');
      expect(mi({ managedInstancesTypes: 'r8gd.2xlarge' }).managedInstances?.instanceTypes).toEqual([
        'r8gd.2xlarge',
      ]);
    });

    it('refuses a companion flag without compute=managed-instances, rather than ignoring it', () => {
      expect(flagOf(() => parse({ managedInstancesMaxConcurrency: '8' }))).toBe(
        'managedInstancesMaxConcurrency',
      );
      expect(flagOf(() => parse({ compute: 'lambda' }))).toBe('compute');
    });
  });

  it('a bad flag fails the real app with one line and exit code 1, writing no templates', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'lab-synth-'));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify({ ...defaults, keepAlive: 'maybe' }),
      },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Invalid context flag keepAlive="maybe": expected one of on, off, both',
    );
    expect(spawnSync('ls', [outdir], { encoding: 'utf8' }).stdout.trim()).toBe('');
  });
});
