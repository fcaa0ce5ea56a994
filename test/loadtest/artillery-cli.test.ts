/** What runArtillery hands artillery, and how it reads artillery's console output back. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, TARGETS } from '../../core/lab-functions';
import { PROJECT_ROOT } from '../../core/paths';
import { checkWorkers, isCloudPlatform } from '../../loadtest/artillery-platform';
import { ArtilleryOutputParser } from '../../loadtest/artillery-progress';
import {
  artilleryArgs,
  burstPauseS,
  labScenarioFile,
  type RunArtilleryOptions,
} from '../../loadtest/artillery-runner';

const base: RunArtilleryOptions = {
  operation: 'get',
  labTarget: 'dynamodb',
  target: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/lab/',
  basePath: 'dynamodb/keepalive-on/',
  durationS: 60,
  ratePerS: 20,
  outJson: '/tmp/out/get.json',
  env: {},
};

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
}

describe('artilleryArgs', () => {
  it('passes target, base path and one phase as artillery flags', () => {
    const args = artilleryArgs(base);
    expect(args[0]).toBe('run');
    // artillery concatenates target + '/dynamodb/...': no trailing slash, or the path gets '//'.
    expect(flag(args, '--target')).toBe('https://abc.execute-api.eu-west-1.amazonaws.com/prod/lab');
    expect(JSON.parse(flag(args, '--variables') ?? '')).toEqual({
      labTarget: 'dynamodb',
      labPhase: 'get',
      basePath: '/dynamodb/keepalive-on',
    });
    expect(JSON.parse(flag(args, '--overrides') ?? '')).toEqual({
      config: { phases: [{ name: 'get-dynamodb-person', duration: 60, arrivalRate: 20 }] },
    });
    expect(flag(args, '--output')).toBe('/tmp/out/get.json');
    expect(args).not.toContain('--payload');
    expect(args.at(-1)).toBe(join(PROJECT_ROOT, 'loadtest', 'get-person.yml'));
    expect(args).not.toContain('--platform');
    expect(args).not.toContain('--quiet');
  });

  it('bursts: arrivals for activeS, then a pause, until durationS of arrivals (the last burst shorter)', () => {
    const args = artilleryArgs({
      ...base,
      operation: 'top10',
      durationS: 7,
      ratePerS: 1,
      bursts: { activeS: 3, pauseS: 12 },
    });
    expect(JSON.parse(flag(args, '--overrides') ?? '')).toEqual({
      config: {
        phases: [
          { name: 'top10-dynamodb-person-burst-1', duration: 3, arrivalRate: 1 },
          { name: 'top10-dynamodb-person-pause-1', pause: 12 },
          { name: 'top10-dynamodb-person-burst-2', duration: 3, arrivalRate: 1 },
          { name: 'top10-dynamodb-person-pause-2', pause: 12 },
          { name: 'top10-dynamodb-person-burst-3', duration: 1, arrivalRate: 1 },
        ],
      },
    });
    expect(burstPauseS(7, { activeS: 3, pauseS: 12 })).toBe(24);
    expect(burstPauseS(7, undefined)).toBe(0);
    // A closed loop has no arrivals to pause.
    expect(() => artilleryArgs({ ...base, parallel: 2, bursts: { activeS: 1, pauseS: 1 } })).toThrow(
      'open loop',
    );
    expect(() => artilleryArgs({ ...base, bursts: { activeS: 0, pauseS: 1 } })).toThrow('bursts.activeS');
  });

  it('refuses what artillery would misread', () => {
    expect(() => artilleryArgs({ ...base, target: 'ftp://x' })).toThrow('http(s)');
    expect(() => artilleryArgs({ ...base, basePath: '/dynamodb/{{ x }}' })).toThrow('basePath');
    expect(() => artilleryArgs({ ...base, durationS: 0 })).toThrow('durationS');
    expect(() => artilleryArgs({ ...base, ratePerS: Number.NaN })).toThrow('ratePerS');
    expect(() => artilleryArgs({ ...base, labTarget: 'mongodb' })).toThrow('labTarget');
  });

  it('runs one scenario per operation for every target, labelled by variables', () => {
    for (const operation of OPERATIONS) {
      const files = new Set<string>();
      for (const labTarget of TARGETS) {
        const args = artilleryArgs({ ...base, operation, labTarget, basePath: `/${labTarget}` });
        files.add(args.at(-1) ?? '');
        expect(JSON.parse(flag(args, '--variables') ?? '')).toEqual({
          labTarget,
          labPhase: operation,
          basePath: `/${labTarget}`,
        });
        expect(JSON.parse(flag(args, '--overrides') ?? '').config.phases[0].name).toBe(
          `${operation}-${labTarget}-person`,
        );
      }
      expect([...files]).toEqual([join(PROJECT_ROOT, labScenarioFile(operation))]);
      expect(existsSync(join(PROJECT_ROOT, labScenarioFile(operation)))).toBe(true);
    }
  });

  it('keeps no per-target scenario: no target name appears in loadtest/*.yml but as a default', () => {
    const ymls = readdirSync(join(PROJECT_ROOT, 'loadtest')).filter((f) => /\.ya?ml$/.test(f));
    expect(ymls.sort()).toEqual(OPERATIONS.map((o) => `${o}-person.yml`).sort());
    for (const f of ymls) {
      const text = readFileSync(join(PROJECT_ROOT, 'loadtest', f), 'utf8');
      // The hand-run defaults name one target; nothing else in the file is target-specific.
      const uses = TARGETS.flatMap((t) => text.split('\n').filter((l) => !/^\s*#/.test(l) && l.includes(t)));
      expect(uses.map((l) => l.trim()).sort()).toEqual(['basePath: /dynamodb', 'labTarget: dynamodb']);
    }
  });

  it('runs any other scenario file as given, with the base path alone', () => {
    const { operation: _o, labTarget: _t, ...common } = base;
    const own = artilleryArgs({ ...common, scenario: 'loadtest/my-scenario.yaml' });
    expect(own.at(-1)).toBe(join(PROJECT_ROOT, 'loadtest', 'my-scenario.yaml'));
    expect(JSON.parse(flag(own, '--variables') ?? '')).toEqual({ basePath: '/dynamodb/keepalive-on' });
    expect(JSON.parse(flag(own, '--overrides') ?? '').config.phases[0].name).toBe('my-scenario');
  });
});

/** Console output shaped as artillery 2.0.21 prints it (padded to 79 columns with dots). */
const pad = (name: string, value: string | number): string => {
  const label = name.length > 79 ? `${name.slice(0, 76)}...` : name;
  return `${label} ${'.'.repeat(79 - label.length)} ${value}`;
};

describe('ArtilleryOutputParser', () => {
  it('adds up period blocks, then takes the summary totals', () => {
    let t = 1000;
    const parser = new ArtilleryOutputParser(() => t);
    const feed = (lines: string[]) => lines.map((l) => parser.push(l));
    feed(['Test run id: t1', 'Phase started: get-dynamodb-person (index: 0, duration: 60s) 08:00:00(+0000)']);
    expect(parser.snapshot()).toEqual({ elapsedS: 0, requests: 0, errors: 0, phase: 'get-dynamodb-person' });

    t = 11_000;
    feed([
      '--------------------------------------',
      'Metrics for period to: 08:00:10(+0000) (width: 9.8s)',
      '--------------------------------------',
      '',
      pad('errors.ECONNREFUSED:', 2),
      pad('http.codes.200:', 45),
      pad('http.codes.404:', 3),
      pad('http.request_rate:', '5/sec'),
      pad('http.requests:', 50),
      pad('http.response_time:', ''),
      pad('  min:', 1),
      pad('  p99:', 7),
      pad('vusers.failed:', 2),
    ]);
    expect(parser.snapshot()).toEqual({
      elapsedS: 10,
      requests: 50,
      errors: 5,
      phase: 'get-dynamodb-person',
    });

    feed([
      'Metrics for period to: 08:00:20(+0000) (width: 10s)',
      // ANSI colour codes and a name long enough to be truncated still parse.
      `\u001b[90m${pad(`errors.${'no GovId in the payload: did the create phase record any?'.repeat(2)}:`, 1)}\u001b[39m`,
      pad('http.codes.200:', 49),
      pad('http.requests:', 50),
    ]);
    expect(parser.snapshot()).toMatchObject({ requests: 100, errors: 6 });

    t = 61_500;
    // The summary header alone changes nothing: no moment of zeros.
    expect(
      feed(['Phase completed: get-dynamodb-person (index: 0, duration: 60s)', 'Summary report @ 08:01:01']),
    ).toEqual([false, false]);
    expect(parser.snapshot().requests).toBe(100);
    feed([pad('http.codes.200:', 290), pad('http.codes.503:', 10), pad('http.requests:', 300)]);
    expect(parser.snapshot()).toEqual({ elapsedS: 60.5, requests: 300, errors: 10, phase: 'summary' });
  });
});

describe('arrivalCount (seeding a step)', () => {
  it('asks for exactly that many arrivals over durationS, an open loop even beside parallel', () => {
    const args = artilleryArgs({
      ...base,
      operation: 'create',
      durationS: 10,
      parallel: 5,
      arrivalCount: 1000,
    });
    const flag = (name: string) => JSON.parse(args[args.indexOf(name) + 1]);
    expect(flag('--overrides').config.phases).toEqual([
      { name: 'create-dynamodb-person', duration: 10, arrivalCount: 1000 },
    ]);
    expect(flag('--variables').closedLoopS).toBeUndefined();
    expect(() => artilleryArgs({ ...base, arrivalCount: 0 })).toThrow('arrivalCount');
    expect(() => artilleryArgs({ ...base, arrivalCount: 2.5 })).toThrow('arrivalCount');
  });
});

describe('cloud workers (artillery-platform.ts)', () => {
  // run-lambda's and run-fargate's flags, as Artillery's oclif commands define them (read as text:
  // loading the commands pulls in Artillery's whole CLI).
  const cmds = join(PROJECT_ROOT, 'node_modules', 'artillery', 'lib');
  const flagNames = (file: string) =>
    [...readFileSync(join(cmds, file), 'utf8').matchAll(/^\s+'?([a-z][a-z-]*)'?: Flags\./gm)].map(
      (m) => m[1],
    );
  const common = flagNames('cli/common-flags.js');
  const lambdaFlags = [...common, ...flagNames('cmds/run-lambda.js')];
  const fargateFlags = [...common, ...flagNames('cmds/run-fargate.js')];
  const flagsOf = (args: string[]) => args.filter((a) => a.startsWith('--')).map((a) => a.slice(2));

  it('calls run-lambda with its documented flags, the phases divided among the workers', () => {
    const args = artilleryArgs({
      ...base,
      payload: '/tmp/out/govids.csv',
      workers: {
        platform: 'aws:lambda',
        count: 4,
        region: 'eu-west-1',
        role: 'arn:aws:iam::123456789012:role/r',
      },
    });
    expect(args.slice(0, 5)).toEqual(['run-lambda', '--region', 'eu-west-1', '--count', '4']);
    expect(flag(args, '--lambda-role-arn')).toBe('arn:aws:iam::123456789012:role/r');
    expect(flag(args, '--architecture')).toBe('arm64');
    for (const f of flagsOf(args)) expect(lambdaFlags, f).toContain(f);
    // Every Lambda worker runs the whole script: 20/s in all is 5/s each.
    expect(JSON.parse(flag(args, '--overrides') ?? '').config.phases[0].arrivalRate).toBe(5);
    // run-lambda ships only what the script names: the phase's own script, not --payload.
    expect(args).not.toContain('--payload');
    expect(args.at(-1)).toBe('/tmp/out/scripts/get.yml');
  });

  it('calls run-fargate with its documented flags, Spot and the task role by name', () => {
    const args = artilleryArgs({
      ...base,
      parallel: 6,
      workers: { platform: 'aws:fargate', count: 3, region: 'us-east-1', role: 'lab-workers', spot: true },
    });
    expect(args.slice(0, 5)).toEqual(['run-fargate', '--region', 'us-east-1', '--count', '3']);
    expect(flag(args, '--task-role-name')).toBe('lab-workers');
    expect(args).toContain('--spot');
    for (const f of flagsOf(args)) expect(fargateFlags, f).toContain(f);
    // A closed loop of 6 users is 2 per task; the variables still say the whole loop's length.
    expect(JSON.parse(flag(args, '--overrides') ?? '').config.phases[0].arrivalCount).toBe(2);
    expect(JSON.parse(flag(args, '--variables') ?? '').closedLoopS).toBe(60);
    expect(() =>
      artilleryArgs({
        ...base,
        parallel: 5,
        workers: { platform: 'aws:fargate', count: 3, region: 'us-east-1' },
      }),
    ).toThrow('multiple of 3');
  });

  it('refuses what the cloud would fail on later', () => {
    expect(() => checkWorkers({ platform: 'aws:lambda', count: 0, region: 'us-east-1' })).toThrow('count');
    expect(() => checkWorkers({ platform: 'aws:lambda', count: 1, region: 'nowhere' })).toThrow('region');
    expect(() => checkWorkers({ platform: 'aws:lambda', count: 1, region: 'us-east-1', spot: true })).toThrow(
      'Fargate',
    );
    expect(() =>
      checkWorkers({ platform: 'aws:lambda', count: 1, region: 'us-east-1', role: 'name' }),
    ).toThrow('ARN');
    expect(() => checkWorkers({ platform: 'aws:lambda', count: 1, region: 'us-east-1' }, 3600)).toThrow(
      '15-minute',
    );
    expect(() =>
      checkWorkers({ platform: 'aws:fargate', count: 1, region: 'us-east-1' }, 3600),
    ).not.toThrow();
    expect(isCloudPlatform('aws:ecs')).toBe(false);
  });
});
