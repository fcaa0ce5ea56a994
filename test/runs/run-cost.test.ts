/**
 * A run's cost block: Lambda from the REPORT lines (Billed Duration x memory on arm64, a
 * request charge and a REST API call per invocation), the database from each timing block's
 * billed units (DSQL's raw facts modeled into DPUs), and summary.json alone recomputes it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPriceFile, PRICES_DIR, type PriceFile } from '../../core/price-file';
import type { BilledQuantity, TimingLine } from '../../core/timing.mjs';
import { isTiming } from '../../core/timing.mjs';
import { managedInstancesKeys, provisionedIdleUsdPerHour, recomputeCost, runCost } from '../../runs/run-cost';
import { dsqlDpuOf } from '../../targets/dsql/cost';

const prices = loadPriceFile(join(PRICES_DIR, 'us-east-1.json'));

function line(billed: BilledQuantity[], status = 200): TimingLine {
  return {
    at: 0,
    target: 't',
    variant: 'on',
    phase: 'get',
    status,
    clientMs: 10,
    govId: 'A-1',
    timing: { dbMs: 5, newConnection: false, dbRequests: 1, coldStart: false, initType: 'on-demand', billed },
  };
}

describe('runCost', () => {
  it('prices Lambda, API and DynamoDB per million requests, a cold start costing more per request', () => {
    // 49 warm invocations billed 20 ms and one cold one billed 220 ms (init included), 512 MB.
    const reports = [
      ...Array(49).fill({ billedDurationMs: 20, memorySizeMb: 512 }),
      { billedDurationMs: 220, memorySizeMb: 512 },
    ];
    const timings = Array.from({ length: 50 }, () =>
      line([{ key: 'dynamodb.readRequestUnits', quantity: 1, basis: 'measured' }]),
    );
    const c = runCost({ reports, timings, architecture: 'arm64', api: 'rest' }, prices);
    if (!c) throw new Error('no cost block');
    const gbs = (49 * 0.02 + 0.22) * 0.5;
    expect(c.perMillion.lambda).toBeCloseTo(0.2 + ((gbs * 0.0000133334) / 50) * 1e6, 9);
    expect(c.perMillion.api).toBeCloseTo(3.5, 9);
    expect(c.perMillion.database).toBeCloseTo(0.125, 9);
    expect(c.databaseBasis).toBe('measured');
    expect(c.prices).toBe('us-east-1.json (us-east-1, read 2026-11-25)');
    // The p99 invocation is the cold one: 200 ms more of 0.5 GB at the arm64 price.
    expect(c.perRequestUsd?.p99 ?? 0).toBeGreaterThan(c.perRequestUsd?.p50 ?? 0);
    expect((c.perRequestUsd?.p99 ?? 0) - (c.perRequestUsd?.p50 ?? 0)).toBeCloseTo(
      0.2 * 0.5 * 0.0000133334,
      15,
    );
  });

  it('leaves out responses that never reached the database, and returns null without a REPORT line', () => {
    const reports = [{ billedDurationMs: 2, memorySizeMb: 128 }];
    const c = runCost(
      {
        reports,
        timings: [line([{ key: 'dynamodb.writeRequestUnits', quantity: 1, basis: 'computed' }], 400)],
        architecture: 'arm64',
        api: 'rest',
      },
      prices,
    );
    expect(c?.perMillion.database).toBe(0);
    expect(runCost({ reports: [], timings: [], architecture: 'arm64', api: 'rest' }, prices)).toBeNull();
  });

  it('models DSQL DPUs from each transaction by the billing page formulas, a retried conflict paying its floors again', () => {
    const m = prices.metering.dsql.rules;
    const insert = new Map([
      ['dsql.transactions', 1],
      ['dsql.computeSeconds', 0.008],
      ['dsql.bytesRead', 0],
      ['dsql.rowsWritten', 2],
      ['dsql.bytesWritten', 120],
    ]);
    // Two rows under 128 B bill 256 B, under the 1,024 B transaction floor: 0.05 write DPU, 0.00375 read.
    expect(dsqlDpuOf(insert, m)).toBeCloseTo(0.008 + 1024 * 0.00004883 + 2048 * 0.00000183105, 9);
    const retried = new Map([...insert, ['dsql.transactions', 2]]);
    expect(dsqlDpuOf(retried, m) - dsqlDpuOf(insert, m)).toBeCloseTo(
      1024 * 0.00004883 + 2048 * 0.00000183105,
      9,
    );
    const c = runCost(
      {
        reports: [{ billedDurationMs: 10, memorySizeMb: 512 }],
        timings: [line([...insert].map(([key, quantity]) => ({ key, quantity, basis: 'modeled' as const })))],
        architecture: 'arm64',
        api: 'rest',
      },
      prices,
    );
    expect(c?.components.find((x) => x.key === 'dsql.dpu')).toMatchObject({ basis: 'modeled' });
    expect(c?.databaseBasis).toBe('modeled');
  });

  it('summary.json alone reproduces every figure: its recorded units x the price file', () => {
    const reports = Array.from({ length: 50 }, (_, i) => ({ billedDurationMs: 10 + i, memorySizeMb: 1024 }));
    const timings = Array.from({ length: 50 }, () =>
      line([{ key: 'redis.commands', quantity: 3, basis: 'measured' }]),
    );
    const c = runCost({ reports, timings, architecture: 'arm64', api: 'rest' }, prices);
    if (!c) throw new Error('no cost block');
    // What summary.json holds, read back as JSON.
    const stored = JSON.parse(JSON.stringify({ runs: [{ cost: c }] })).runs[0].cost;
    const again = recomputeCost(stored, prices);
    expect(again.perMillion).toEqual(stored.perMillion);
    expect(again.components.map((x) => x.usdPerMillionRequests)).toEqual(
      stored.components.map((x: { usdPerMillionRequests: number }) => x.usdPerMillionRequests),
    );
    expect(stored.perMillion.database).toBeCloseTo(3 * 2, 9); // 3 commands at $0.2 per 100,000
  });

  it('gives provisioned concurrency its idle cost per hour, and none where the price is unverified', () => {
    // 1 environment of 1,024 MB for an hour: 3,600 GB-s x $0.0000041667 (x86_64, us-east-1).
    expect(provisionedIdleUsdPerHour(1, 1024, 'x86_64', prices)).toBeCloseTo(0.01500012, 8);
    expect(provisionedIdleUsdPerHour(1, 1024, 'arm64', prices)).toBeNull();
  });

  it('adds provisioned concurrency as its own line over the wall time, never in $ per million', () => {
    const reports = [{ billedDurationMs: 20, memorySizeMb: 1024 }];
    const timings = [line([])];
    const plain = runCost({ reports, timings, architecture: 'x86_64', api: 'rest' }, prices);
    const c = runCost(
      {
        reports,
        timings,
        architecture: 'x86_64',
        api: 'rest',
        provisioned: { concurrency: 2, wallS: 60, memoryMb: 1024 },
      },
      prices,
    );
    // 2 environments of 1 GB for 60 s: 120 reserved GB-s x $0.0000041667.
    expect(c?.provisionedIdle).toMatchObject({
      key: 'lambda.provisionedGbSeconds.x86_64',
      gbSeconds: 120,
      usdPerHour: expect.closeTo(2 * 0.01500012, 8),
    });
    expect(c?.provisionedIdle?.usd).toBeCloseTo(120 * 0.0000041667, 12);
    expect(c?.perMillion).toEqual(plain?.perMillion);
    expect(plain?.provisionedIdle).toBeUndefined();
    // arm64's price is unverified: the reserved GB-s stay, the dollars are null with the reason.
    const arm = runCost(
      {
        reports,
        timings,
        architecture: 'arm64',
        api: 'rest',
        provisioned: { concurrency: 1, wallS: 60, memoryMb: 1024 },
      },
      prices,
    );
    expect(arm?.provisionedIdle).toMatchObject({ gbSeconds: 60, usd: null, usdPerHour: null });
    expect(arm?.provisionedIdle?.unpriced).toMatch(/arm64 provisioned-concurrency price/);
    // No provisioned concurrency, no line.
    expect(
      runCost(
        {
          reports,
          timings,
          architecture: 'arm64',
          api: 'rest',
          provisioned: { concurrency: 0, wallS: 60, memoryMb: 1024 },
        },
        prices,
      )?.provisionedIdle,
    ).toBeUndefined();
  });

  it('bills the duration of invocations served by provisioned concurrency at its own price, the rest on demand', () => {
    // 10 invocations of 100 ms at 1 GB: 1 GB-s. https://aws.amazon.com/lambda/pricing/ (Provisioned
    // Concurrency pricing): duration on a provisioned environment at $0.0000097222 per GB-s
    // (x86_64, us-east-1), beyond the configured concurrency at the on-demand $0.0000166667.
    const reports = Array(10).fill({ billedDurationMs: 100, memorySizeMb: 1024 });
    const served = (initType: string) => ({
      ...line([]),
      timing: { ...(line([]).timing as NonNullable<TimingLine['timing']>), initType },
    });
    const cost = (timings: TimingLine[]) =>
      runCost({ reports, timings, architecture: 'x86_64', api: 'rest' }, prices);
    const all = cost(Array.from({ length: 10 }, () => served('provisioned-concurrency')));
    expect(all?.units.filter((u) => u.key.includes('GbSeconds') || u.key.includes('gbSeconds'))).toEqual([
      {
        key: 'lambda.provisionedDurationGbSeconds.x86_64',
        quantity: expect.closeTo(1, 12),
        basis: 'measured',
      },
    ]);
    expect(all?.perMillion.lambda).toBeCloseTo(0.2 + (0.0000097222 / 10) * 1e6, 9);
    const none = cost(Array.from({ length: 10 }, () => served('on-demand')));
    expect(none?.perMillion.lambda).toBeCloseTo(0.2 + (0.0000166667 / 10) * 1e6, 9);
    // Spillover: 4 of 10 beyond the configured concurrency; REPORT lines do not say which, so the
    // GB-s are split by the timing blocks' share and marked modeled.
    const mixed = cost([
      ...Array.from({ length: 6 }, () => served('provisioned-concurrency')),
      ...Array.from({ length: 4 }, () => served('on-demand')),
    ]);
    expect(mixed?.units.filter((u) => u.key.startsWith('lambda.') && u.key !== 'lambda.requests')).toEqual([
      {
        key: 'lambda.provisionedDurationGbSeconds.x86_64',
        quantity: expect.closeTo(0.6, 12),
        basis: 'modeled',
      },
      { key: 'lambda.gbSeconds.x86_64', quantity: expect.closeTo(0.4, 12), basis: 'modeled' },
    ]);
    expect(mixed?.perMillion.lambda).toBeCloseTo(
      0.2 + ((0.6 * 0.0000097222 + 0.4 * 0.0000166667) / 10) * 1e6,
      9,
    );
  });

  describe('a phase on Lambda Managed Instances', () => {
    // Made-up instance prices (the files' are unverified): $0.1 an hour and its 15% fee.
    const keys = managedInstancesKeys('m7g.large');
    const withInstancePrice = (p: PriceFile): PriceFile => ({
      ...p,
      prices: {
        ...p.prices,
        [keys.instanceHours]: { ...p.prices[keys.instanceHours], usd: 0.1, unverified: undefined },
        [keys.managementFee]: { ...p.prices[keys.managementFee], usd: 0.015, unverified: undefined },
      },
    });
    const priced = withInstancePrice(prices);
    // 1,000 invocations at 2 GB whose Billed Duration would cost GB-seconds on standard Lambda.
    const reports = Array.from({ length: 1000 }, (_, i) => ({
      billedDurationMs: 20 + (i % 7),
      memorySizeMb: 2048,
    }));
    const timings = Array.from({ length: 1000 }, () =>
      line([{ key: 'dynamodb.readRequestUnits', quantity: 0.5, basis: 'computed' }]),
    );
    // 3 instances for 20 minutes: 1 instance-hour.
    const phase = { instanceType: 'm7g.large', instances: 3, wallS: 1200 };

    it('bills instance-hours, the management fee on them and a request charge, never GB-seconds', () => {
      const c = runCost(
        { reports, timings, architecture: 'arm64', api: 'rest', managedInstances: phase },
        priced,
      );
      if (!c) throw new Error('no cost block');
      expect(c.units).toEqual([
        { key: 'lambda.managedInstances.requests', quantity: 1000, basis: 'measured' },
        { key: 'lambda.managedInstances.instanceHours.m7g.large', quantity: 1, basis: 'measured' },
        { key: 'lambda.managedInstances.managementFee.m7g.large', quantity: 1, basis: 'measured' },
        { key: 'api.rest.requests', quantity: 1000, basis: 'measured' },
        { key: 'dynamodb.readRequestUnits', quantity: 500, basis: 'computed' },
      ]);
      // ($0.1 + $0.015 + 1,000 x $0.2 per million) / 1,000 requests, per million.
      expect(c.perMillion.lambda).toBeCloseTo(((0.1 + 0.015 + 0.0002) / 1000) * 1e6, 9);
      expect(c.perMillion.api).toBeCloseTo(3.5, 9);
      expect(c.perMillion.database).toBeCloseTo(0.0625, 9);
      expect(c.unpriced).toEqual([]);
      // Duration does not change the bill: every request costs the same share.
      expect(c.perRequestUsd?.p99).toBeCloseTo(c.perRequestUsd?.p50 ?? -1, 15);
      expect(c.perRequestUsd?.p50).toBeCloseTo(c.perMillion.total / 1e6, 15);
      // The same phase on standard Lambda bills GB-seconds instead, and costs differently.
      const standard = runCost({ reports, timings, architecture: 'arm64', api: 'rest' }, priced);
      expect(standard?.units.map((u) => u.key)).toContain('lambda.gbSeconds.arm64');
      expect(standard?.perMillion.lambda).not.toBeCloseTo(c.perMillion.lambda, 3);
    });

    it('idle instances cost the same: twice the hours, twice the instance bill for the same requests', () => {
      const one = runCost(
        { reports, timings, architecture: 'arm64', api: 'rest', managedInstances: phase },
        priced,
      );
      const two = runCost(
        { reports, timings, architecture: 'arm64', api: 'rest', managedInstances: { ...phase, wallS: 2400 } },
        priced,
      );
      expect((two?.perMillion.lambda ?? 0) - (one?.perMillion.lambda ?? 0)).toBeCloseTo(
        ((0.1 + 0.015) / 1000) * 1e6,
        9,
      );
    });

    it('with the files’ prices the instance hours and fee are unpriced, listed, and never $0; the requests are priced', () => {
      const c = runCost(
        { reports, timings, architecture: 'arm64', api: 'rest', managedInstances: phase },
        prices,
      );
      expect(c?.unpriced).toEqual([keys.instanceHours, keys.managementFee]);
      expect(c?.perMillion.lambda).toBeCloseTo(0.2, 12);
      expect(c?.components.find((x) => x.key === keys.instanceHours)?.unverified).toMatch(/on-demand price/);
      // Summary.json alone gives the figures back.
      const stored = JSON.parse(JSON.stringify(c));
      expect(recomputeCost(stored, prices).perMillion).toEqual(stored.perMillion);
    });

    it('refuses an instance type the price file has no price for, and a phase with no instances', () => {
      expect(() =>
        runCost(
          {
            reports,
            timings,
            architecture: 'arm64',
            api: 'rest',
            managedInstances: { ...phase, instanceType: 'm9g.large' },
          },
          priced,
        ),
      ).toThrow(/no price 'lambda.managedInstances.instanceHours.m9g.large'/);
      expect(() =>
        runCost(
          {
            reports,
            timings,
            architecture: 'arm64',
            api: 'rest',
            managedInstances: { ...phase, instances: 0 },
          },
          priced,
        ),
      ).toThrow(RangeError);
    });

    it.each(['us-east-1.json', 'eu-west-1.json'])(
      '%s: each type’s management fee is 15%% of its instance price, or unverified with it',
      (file) => {
        const p = loadPriceFile(join(PRICES_DIR, file));
        const types = Object.keys(p.prices)
          .filter((k) => k.startsWith('lambda.managedInstances.instanceHours.'))
          .map((k) => k.slice('lambda.managedInstances.instanceHours.'.length));
        expect(types.sort()).toEqual(['c7g.large', 'm7g.large', 'r7g.large']);
        for (const t of types) {
          const k = managedInstancesKeys(t);
          const instance = p.prices[k.instanceHours].usd;
          const fee = p.prices[k.managementFee].usd;
          if (instance === null) expect(fee, t).toBeNull();
          else expect(fee, t).toBeCloseTo(Math.round(instance * 0.15 * 1e10) / 1e10, 10);
        }
        expect(p.prices[managedInstancesKeys('m7g.large').requests]).toBeDefined();
      },
    );
  });

  it('the timing block accepts billed units and refuses malformed ones', () => {
    const ok = line([{ key: 'redis.commands', quantity: 1, basis: 'measured' }]).timing;
    expect(isTiming(ok)).toBe(true);
    expect(isTiming({ ...ok, billed: [{ key: 'redis.commands', quantity: -1, basis: 'measured' }] })).toBe(
      false,
    );
    expect(isTiming({ ...ok, billed: [{ key: 'redis.commands', quantity: 1, basis: 'guessed' }] })).toBe(
      false,
    );
  });
});
