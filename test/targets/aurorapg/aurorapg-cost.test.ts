/**
 * The aurorapg target's cost part (targets/aurorapg/cost.ts, prices.json) and its flags
 * (settings.ts): Aurora bills capacity over time (ACU-hours per second while the writer runs,
 * nothing while paused: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html),
 * the minimum capacity is a floor billed whether requests come or not (its own line), and RDS
 * Proxy bills the capacity it fronts with a minimum; a price that could not be verified is null.
 */
import { describe, expect, it } from 'vitest';
import { capacityQuantities } from '../../../core/cost-registry';
import { DEFAULT_PRICE_FILE, loadPriceFile } from '../../../core/price-file';
import { ConfigError } from '../../../lib/config';
import { runCost } from '../../../runs/run-cost';
import { ACU_FLOOR_HOURS, ACU_HOURS, PROXY_ACU_HOURS, phaseCapacity } from '../../../targets/aurorapg/cost';
import prices from '../../../targets/aurorapg/prices.json' with { type: 'json' };
import { parseAuroraSettings } from '../../../targets/aurorapg/settings';

const rules = { lowestRunningAcu: 0.5, proxyMinimumAcu: 8 };
const hour = 3600;
const flags = (o: Record<string, string>) => (k: string) => o[k];

describe('aurorapg capacity', () => {
  it('bills no ACU while paused, the lowest running capacity while it runs, and no floor with a minimum of 0', () => {
    const direct = { mode: 'direct', minAcu: 0 } as const;
    expect(phaseCapacity({ settings: direct, wallS: hour, pausedS: hour }, rules)).toEqual([]);
    expect(phaseCapacity({ settings: direct, wallS: hour, pausedS: hour / 2 }, rules)).toEqual([
      { key: ACU_HOURS, quantity: 0.25, basis: 'modeled' },
    ]);
  });

  it('puts a minimum above 0 on its own line, billed for the whole time (a pause needs a minimum of 0)', () => {
    const q = phaseCapacity({ settings: { mode: 'direct', minAcu: 2 }, wallS: hour, pausedS: hour }, rules);
    expect(q).toEqual([{ key: ACU_FLOOR_HOURS, quantity: 2, basis: 'computed' }]);
    const busy = phaseCapacity(
      { settings: { mode: 'direct', minAcu: 2 }, wallS: hour, servingAcu: 3 },
      rules,
    );
    expect(busy).toEqual([
      { key: ACU_FLOOR_HOURS, quantity: 2, basis: 'computed' },
      { key: ACU_HOURS, quantity: 1, basis: 'modeled' },
    ]);
  });

  it('bills the proxy at its minimum ACUs when the cluster runs below it', () => {
    const q = phaseCapacity({ settings: { mode: 'proxy', minAcu: 0.5 }, wallS: hour }, rules);
    expect(q).toContainEqual({ key: PROXY_ACU_HOURS, quantity: 8, basis: 'modeled' });
    expect(q).toContainEqual({ key: ACU_FLOOR_HOURS, quantity: 0.5, basis: 'computed' });
  });

  it('is registered: a phase of the lab gets its units from the flags, and the run’s database cost has them', () => {
    expect(capacityQuantities('aurorapg', { wallS: hour, context: flags({}) })).toEqual([
      { key: ACU_HOURS, quantity: 0.5, basis: 'modeled' },
    ]);
    const file = loadPriceFile(DEFAULT_PRICE_FILE);
    const cost = runCost(
      {
        reports: [{ billedDurationMs: 10, memorySizeMb: 512 }],
        timings: [],
        architecture: 'arm64',
        api: 'rest',
        capacity: capacityQuantities('aurorapg', { wallS: hour, context: flags({ auroraPgMinAcu: '1' }) }),
      },
      file,
    );
    const floor = cost?.components.find((c) => c.key === ACU_FLOOR_HOURS);
    expect(floor?.quantity).toBe(1);
    // One ACU-hour at the us-east-1 price, shared by the one request.
    expect(floor?.totalUsd).toBeCloseTo(prices.regions['us-east-1'].prices['aurorapg.acuFloorHours'].usd, 9);
    expect(cost?.perMillion.database).toBeGreaterThan(0);
  });

  it('leaves the proxy’s price null and says why, so a proxy run’s total never reads as free', () => {
    const file = loadPriceFile(DEFAULT_PRICE_FILE);
    expect(file.prices[PROXY_ACU_HOURS].usd).toBeNull();
    expect(file.prices[PROXY_ACU_HOURS].unverified).toMatch(/not reachable/);
    const cost = runCost(
      {
        reports: [{ billedDurationMs: 10, memorySizeMb: 512 }],
        timings: [],
        architecture: 'arm64',
        api: 'rest',
        capacity: capacityQuantities('aurorapg', { wallS: hour, context: flags({ auroraPgMode: 'proxy' }) }),
      },
      file,
    );
    expect(cost?.unpriced).toEqual([PROXY_ACU_HOURS]);
  });
});

describe('aurorapg flags', () => {
  it('defaults to direct with a minimum of 0 and a 300 s pause, proxy to 0.5 ACUs without one', () => {
    expect(parseAuroraSettings()).toEqual({ mode: 'direct', minAcu: 0, maxAcu: 1, autoPauseS: 300 });
    expect(parseAuroraSettings(flags({ auroraPgMode: 'proxy' }))).toEqual({
      mode: 'proxy',
      minAcu: 0.5,
      maxAcu: 1,
    });
  });

  it('refuses what AWS refuses, naming the flag: a proxy at 0, a pause outside 300..86,400 s or with a minimum above 0, ACUs off the half steps', () => {
    const bad: Record<string, string>[] = [
      { auroraPgMode: 'proxy', auroraPgMinAcu: '0' },
      { auroraPgAutoPauseS: '299' },
      { auroraPgAutoPauseS: '86401' },
      { auroraPgMinAcu: '1', auroraPgAutoPauseS: '600' },
      { auroraPgMinAcu: '0.3' },
      { auroraPgMaxAcu: '300' },
      { auroraPgMode: 'serverless' },
    ];
    for (const b of bad)
      expect(() => parseAuroraSettings(flags(b)), JSON.stringify(b)).toThrowError(ConfigError);
  });
});
