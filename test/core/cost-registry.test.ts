/**
 * A target's part of the cost model: its units, its meter and its prices per region join the
 * core prices of a region; a unit without a price there, or a unit no target declares, is a row
 * whose price is unknown with the reason, never a failed run; a bad part is refused naming its
 * target and file (registration.test.ts shows a module with one changes no registry).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTargetCost, type TargetCost } from '../../core/cost-registry';
import { loadPriceFile, PRICES_DIR, parsePriceFile } from '../../core/price-file';
import type { BilledQuantity, TimingLine } from '../../core/timing.mjs';
import { recomputeCost, runCost } from '../../runs/run-cost';
import { cost as dsql } from '../../targets/dsql/cost';
import { cost as dynamodb } from '../../targets/dynamodb/cost';
import { cost as qldb } from '../../targets/qldb/cost';
import { cost as redis } from '../../targets/redis/cost';
import { cost as throwawayCost, WIDGET_REQUESTS } from '../targets/throwaway/cost';
import { THROWAWAY_SENT_BYTES } from '../targets/throwaway/store';

const parts = [parseTargetCost('throwaway', throwawayCost)];
const usEast = loadPriceFile(join(PRICES_DIR, 'us-east-1.json'), parts);
const euWest = loadPriceFile(join(PRICES_DIR, 'eu-west-1.json'), parts);

function line(billed: BilledQuantity[]): TimingLine {
  return {
    at: 0,
    target: 'throwaway',
    variant: 'on',
    phase: 'get',
    status: 200,
    clientMs: 10,
    govId: 'A-1',
    timing: { dbMs: 5, newConnection: false, dbRequests: 1, coldStart: false, initType: 'on-demand', billed },
  };
}
const reports = [{ billedDurationMs: 10, memorySizeMb: 512 }];
const sent = (bytes: number) => line([{ key: THROWAWAY_SENT_BYTES, quantity: bytes, basis: 'measured' }]);

describe('a target’s cost part', () => {
  it("joins the core prices of the file's region: its price, its free line, its meter bound to its rules", () => {
    expect(usEast.prices[WIDGET_REQUESTS]).toMatchObject({ usd: 50, per: 1_000_000, group: 'database' });
    expect(usEast.owners[WIDGET_REQUESTS]).toBe('throwaway');
    expect(usEast.separate.map((s) => s.label)).toContain('Throwaway free widgets');
    // Only the parts given: no built-in's price without its part.
    expect(usEast.prices['dsql.dpu']).toBeUndefined();
    expect(usEast.metering.throwaway.rules).toEqual({ widgetBytes: 1024 });
    // 2,049 bytes sent: three widget requests at one per KB, rounded up.
    const c = runCost({ reports, timings: [sent(2049)], architecture: 'arm64', api: 'rest' }, usEast);
    expect(c?.units.find((u) => u.key === WIDGET_REQUESTS)).toEqual({
      key: WIDGET_REQUESTS,
      quantity: 3,
      basis: 'computed',
    });
    expect(c?.units.map((u) => u.key)).not.toContain(THROWAWAY_SENT_BYTES);
    expect(c?.perMillion.database).toBeCloseTo(3 * 50, 9);
  });

  it('a region it gives no price for: the unit is unknown, the reason naming target, unit and region, and the run is priced otherwise', () => {
    expect(euWest.prices[WIDGET_REQUESTS]).toMatchObject({
      usd: null,
      unverified: `target throwaway gives no price for unit ${WIDGET_REQUESTS} in eu-west-1 (test/targets/throwaway/prices.json)`,
    });
    const c = runCost({ reports, timings: [sent(10)], architecture: 'arm64', api: 'rest' }, euWest);
    expect(c?.unpriced).toContain(WIDGET_REQUESTS);
    expect(c?.components.find((x) => x.key === WIDGET_REQUESTS)?.unverified).toMatch(
      /throwaway .*throwaway\.widgetRequests in eu-west-1/,
    );
    expect(c?.perMillion.database).toBe(0);
    expect(c?.perMillion.lambda).toBeGreaterThan(0);
  });

  it('a price the core file gives for a target unit wins: a file of one’s own fills or overrides it', () => {
    const raw = JSON.parse(readFileSync(join(PRICES_DIR, 'eu-west-1.json'), 'utf8'));
    raw.prices[WIDGET_REQUESTS] = { ...usEast.prices[WIDGET_REQUESTS], usd: 70 };
    const own = parsePriceFile(raw, 'mine.json', parts);
    expect(own.prices[WIDGET_REQUESTS]).toMatchObject({ usd: 70, group: 'database' });
    expect(own.owners[WIDGET_REQUESTS]).toBe('throwaway');
  });

  it('a unit no registered target declares is unknown in its row with the reason, never a failed run', () => {
    const bare = loadPriceFile(join(PRICES_DIR, 'us-east-1.json'), []);
    const timings = [line([{ key: 'mystery.things', quantity: 2, basis: 'measured' }])];
    const c = runCost({ reports, timings, architecture: 'arm64', api: 'rest' }, bare);
    if (!c) throw new Error('no cost block');
    expect(c.unpriced).toEqual(['mystery.things']);
    expect(c.components.find((x) => x.key === 'mystery.things')).toMatchObject({
      group: 'database',
      quantity: 2,
      usd: null,
      unverified: expect.stringMatching(/no registered target declares unit mystery\.things/),
    });
    // summary.json alone still gives the figures back.
    const stored = JSON.parse(JSON.stringify(c));
    expect(recomputeCost(stored, bare).perMillion).toEqual(stored.perMillion);
  });

  it('bills raw quantities by the meter of the target that records them, DSQL’s DPUs among them', () => {
    const all = loadPriceFile(
      join(PRICES_DIR, 'us-east-1.json'),
      Object.entries({ dynamodb, qldb, redis, dsql }).map(([name, cost]) => parseTargetCost(name, cost)),
    );
    const raw = [
      { key: 'dsql.transactions', quantity: 1, basis: 'modeled' as const },
      { key: 'dsql.computeSeconds', quantity: 0.003, basis: 'modeled' as const },
      { key: 'dsql.bytesRead', quantity: 500, basis: 'modeled' as const },
    ];
    const c = runCost({ reports, timings: [line(raw)], architecture: 'arm64', api: 'rest' }, all);
    // The billing page's point lookup: 0.00675 DPU.
    expect(c?.units.filter((u) => u.key.startsWith('dsql.'))).toEqual([
      { key: 'dsql.dpu', quantity: expect.closeTo(0.00675, 5), basis: 'modeled' },
    ]);
  });

  it('refuses a bad part naming its target and file', () => {
    const bad =
      (change: Partial<TargetCost>, name = 'throwaway') =>
      () =>
        parseTargetCost(name, { ...throwawayCost, ...change });
    expect(bad({ units: { widgets: 'widgets' } })).toThrow(
      "target throwaway: unit 'widgets' must be 'throwaway.<unit>'",
    );
    const prices = structuredClone(throwawayCost.prices) as {
      regions: Record<string, { prices: Record<string, Record<string, unknown>> }>;
      metering: Record<string, unknown>;
    };
    const region = prices.regions['us-east-1'].prices;
    region['throwaway.other'] = region[WIDGET_REQUESTS];
    expect(bad({ prices })).toThrow(
      /target throwaway: test\/targets\/throwaway\/prices\.json: regions\.us-east-1\.prices\.throwaway\.other is not one of its units/,
    );
    delete region['throwaway.other'];
    region[WIDGET_REQUESTS] = { ...region[WIDGET_REQUESTS], group: 'lambda' };
    expect(bad({ prices })).toThrow(/prices\.throwaway\.widgetRequests\.group must be 'database'/);
    expect(bad({ meteringRules: ['widgetBytes', 'minimumWidgets'] })).toThrow(
      /metering\.minimumWidgets must be a number > 0/,
    );
    expect(() =>
      parseTargetCost('lambda', { ...throwawayCost, units: { 'lambda.requests': 'requests' } }),
    ).toThrow('target lambda: a target named lambda cannot bill units');
  });
});
