/**
 * Local Power Tuning: Power Tuning 4.4.0's rules (durations from REPORT lines with Init
 * Duration, the trimmed mean, the cost formula and its prices, the three strategies, the
 * output shape), the command line. The run on the lab: local-tune-lab.test.ts (slow tier).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, lambdaCostUsd } from '../../core/cost';
import { parseTuneResultFile } from '../../tune/power-tuning-result';
import {
  choosePower,
  powerValueStats,
  reportDurations,
  totalDuration,
  trimmedMean,
  tuningOutput,
  visualizationUrl,
} from '../../tune/power-tuning-rules';
import { parseTuneArgs } from '../../tune/tune-args';

const line = (duration: number, billed: number, init?: number) =>
  `REPORT RequestId: 1f0e\tDuration: ${duration.toFixed(2)} ms\tBilled Duration: ${billed} ms\tMemory Size: 512 MB\tMax Memory Used: 80 MB\t${init === undefined ? '' : `Init Duration: ${init.toFixed(2)} ms\t`}`;

describe("Power Tuning's rules", () => {
  it('reads Duration, Billed Duration and Init Duration from a REPORT line and adds init to the duration', () => {
    const d = reportDurations(line(12.5, 190, 177.25));
    expect(d).toEqual({
      durationMs: 12.5,
      initDurationMs: 177.25,
      restoreDurationMs: 0,
      billedDurationMs: 190,
      billedRestoreDurationMs: 0,
    });
    expect(totalDuration(d as NonNullable<typeof d>)).toBe(189.75);
    expect(reportDurations('START RequestId: 1 Version: $LATEST')).toBeUndefined();
  });

  it('trims floor(n x 0.2) values at each end before averaging, and clamps the share to 0.4', () => {
    // 10 values: 2 dropped at each end (the cold start among them).
    expect(trimmedMean([200, 1, 10, 10, 10, 10, 10, 10, 2, 300])).toBe(10);
    // 4 values: 4 x 0.2 < 1, nothing to drop.
    expect(trimmedMean([1, 2, 3, 10])).toBe(4);
    expect(trimmedMean([1, 2, 3, 4, 100], 0.9)).toBe(3); // clamped to 0.4: 2 dropped each end
    expect(trimmedMean([], 0.2)).toBe(0);
  });

  it('prices the average billed duration, rounded up, at the price per ms at 128 MB x memory / 128', () => {
    const arm = DEFAULT_PRICES.lambda.perMsAt128Mb.arm64;
    const x86 = DEFAULT_PRICES.lambda.perMsAt128Mb.x86_64;
    expect(arm).toBe(1.7e-9);
    expect(x86).toBe(2.1e-9);
    expect(lambdaCostUsd({ billedMs: 10.2, memoryMb: 1024, architecture: 'arm64' })).toBeCloseTo(
      11 * arm * 8,
      20,
    );
    const reports = [
      line(3, 190, 180), // cold: trimmed away
      ...[4, 4, 5, 5, 5, 5, 5, 5].map((d) => line(d, Math.ceil(d))),
      line(40, 40),
    ].map((l) => reportDurations(l) as NonNullable<ReturnType<typeof reportDurations>>);
    const s = powerValueStats(512, reports, { architecture: 'x86_64' });
    expect(s.value).toBe(512);
    expect(s.averageDuration).toBe(5);
    expect(s.averagePrice).toBeCloseTo(5 * x86 * 4, 20);
    // Every invocation's own cost, cold start included.
    expect(s.totalCost).toBeCloseTo((190 + 4 + 4 + 6 * 5 + 40) * x86 * 4, 18);
  });

  const stats = [
    { value: 128, averageDuration: 40, averagePrice: 10 },
    { value: 512, averageDuration: 12, averagePrice: 12 },
    { value: 1024, averageDuration: 8, averagePrice: 16 },
    { value: 2048, averageDuration: 8, averagePrice: 32 },
    { value: 3008, averageDuration: 0, averagePrice: 0 }, // no result: out of the running
  ];

  it('chooses the cheapest (cost), the fastest (speed, the cheaper on a tie) or the balanced trade-off', () => {
    expect(choosePower(stats, 'cost').power).toBe(128);
    expect(choosePower(stats, 'speed').power).toBe(1024);
    // 0.5 x cost/32 + 0.5 x duration/40: 128 -> 0.656, 512 -> 0.338, 1024 -> 0.35, 2048 -> 0.6
    expect(choosePower(stats, 'balanced').power).toBe(512);
    expect(choosePower(stats, 'balanced', 1).power).toBe(128); // cost alone
    expect(choosePower(stats, 'balanced', 0).power).toBe(1024); // speed alone, then order kept
    expect(() => choosePower([{ value: 128, averageDuration: 0 }], 'cost')).toThrow(/no power value/);
  });

  it("writes Power Tuning's output shape, always with stats, that the report's reader reads", () => {
    const full = stats.slice(0, 4).map((s) => ({ ...s, totalCost: s.averagePrice * 10 }));
    const out = tuningOutput(full, 'balanced');
    expect(Object.keys(out).sort()).toEqual(['cost', 'duration', 'power', 'stateMachine', 'stats']);
    expect(out).toMatchObject({ power: 512, cost: 12, duration: 12 });
    expect(out.stats).toEqual(stats.slice(0, 4));
    expect(out.stateMachine?.lambdaCost).toBe(700);
    expect(out.stateMachine?.visualization).toBe(visualizationUrl(full));
    // The hash decodes back to the curve: int16 sizes, float32 durations.
    const [sizes, times] = (out.stateMachine?.visualization ?? '').split('#')[1].split(';');
    expect([...new Int16Array(new Uint8Array(Buffer.from(sizes, 'base64')).buffer)]).toEqual([
      128, 512, 1024, 2048,
    ]);
    expect([...new Float32Array(new Uint8Array(Buffer.from(times, 'base64')).buffer)]).toEqual([
      40, 12, 8, 8,
    ]);
    const saved = parseTuneResultFile({
      where: 'local',
      profile: 'in-region',
      function: { key: 'dynamodb-get' },
      input: { strategy: 'balanced' },
      output: out,
    });
    expect(saved).toMatchObject({
      function: 'dynamodb-get',
      where: 'local',
      profile: 'in-region',
      strategy: 'balanced',
    });
    expect(saved?.output.stats).toHaveLength(4);
  });
});

describe('npm run tune -- --target local, arguments', () => {
  it('takes the local options and refuses the cloud-only ones', () => {
    const p = parseTuneArgs(
      [
        '--target',
        'local',
        '--function',
        'dynamodb-get',
        '--power-values',
        '128,512',
        '--num',
        '5',
        '--profile',
        'uniform-8ms',
        '--rtt',
        'dynamodb=2',
        '--balanced-weight',
        '0.3',
      ],
      { env: {} },
    );
    expect(p.help).toBe(false);
    expect(p.help === false && p.local).toMatchObject({
      function: 'dynamodb-get',
      powerValues: [128, 512],
      num: 5,
      balancedWeight: 0.3,
      lab: { profile: 'uniform-8ms', rttByTarget: { dynamodb: 2 } },
    });
    expect(() =>
      parseTuneArgs(['--target', 'local', '--function', 'dynamodb-get', '--region', 'eu-west-1'], {
        env: {},
      }),
    ).toThrow(/--region is for the deployed stack/);
    expect(() =>
      parseTuneArgs(['--target', 'local', '--function', 'dynamodb-get', '--profile', 'lab'], { env: {} }),
    ).toThrow(/--profile: unknown network profile "lab"/);
    expect(() => parseTuneArgs(['--target', 'local', '--function', 'LatencyLab-Api-X'], { env: {} })).toThrow(
      /takes a function key/,
    );
    expect(() =>
      parseTuneArgs(['--target', 'local', '--function', 'dynamodb-get', '--balanced-weight', '2'], {
        env: {},
      }),
    ).toThrow(/--balanced-weight must be a number from 0 to 1/);
    expect(() =>
      parseTuneArgs(['--function', 'dynamodb-get', '--rtt', '1', '--region', 'eu-west-1'], { env: {} }),
    ).toThrow(/--rtt is for --target local/);
  });

  it('takes --prices for the full-cost line, checked by the price-file validator before the lab starts', () => {
    const local = (...extra: string[]) => {
      const p = parseTuneArgs(['--target', 'local', '--function', 'dynamodb-get', ...extra], { env: {} });
      return p.help === false ? p.local : undefined;
    };
    // Resolved, so the lab's working directory does not change which file is read.
    expect(local('--prices', 'core/prices/eu-west-1.json')?.prices).toBe(
      resolve('core/prices/eu-west-1.json'),
    );
    // Without it the tuner uses its default file (us-east-1).
    expect(local()?.prices).toBeUndefined();
    expect(() => local('--prices', 'core/prices/absent.json')).toThrow(/^--prices: cannot read price file /);
    // A JSON file that is not a price file is refused the way npm run load refuses it.
    expect(() => local('--prices', 'package.json')).toThrow(/^--prices: /);
    expect(() =>
      parseTuneArgs(['--function', 'dynamodb-get', '--prices', 'core/prices/us-east-1.json'], { env: {} }),
    ).toThrow(/--prices is for --target local/);
  });
});
