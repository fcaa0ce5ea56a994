/** The workers' own cost (runs/worker-cost.ts): priced from the workers' region's file, null where unverifiable. */
import { describe, expect, it } from 'vitest';
import { regionPriceFile, workerCost, workerCostLine } from '../../runs/worker-cost';

describe('workerCost', () => {
  it("prices Lambda workers from the region's file: GB-s of their memory over the run, plus their invocations", () => {
    const prices = regionPriceFile('eu-west-1');
    expect(prices).toBeDefined();
    if (!prices) return;
    const c = workerCost({
      shape: { platform: 'aws:lambda', memoryMb: 4096, architecture: 'arm64' },
      count: 10,
      region: 'eu-west-1',
      wallS: 100,
      invocations: 20,
    });
    const gbs = prices.prices['lambda.gbSeconds.arm64'];
    const req = prices.prices['lambda.requests'];
    expect(c.used.map((u) => [u.key, u.quantity])).toEqual([
      ['lambda.gbSeconds.arm64', 10 * 4 * 100],
      ['lambda.requests', 20],
    ]);
    expect(c.usd).toBeCloseTo(((gbs.usd ?? 0) / gbs.per) * 4000 + ((req.usd ?? 0) / req.per) * 20, 10);
    expect(c.used.every((u) => u.source.startsWith('https://'))).toBe(true);
    expect(workerCostLine(c)).toMatch(
      /^Load generators: 10 aws:lambda workers in eu-west-1 for at most 100 s: at most \$\d+\.\d{4} at eu-west-1\.json \(eu-west-1, read \d{4}-\d{2}-\d{2}\) /,
    );
  });

  it('says why, and gives no figure, where a price cannot be verified', () => {
    const fargate = workerCost({
      shape: { platform: 'aws:fargate', vcpu: 4, memoryGb: 8, spot: false },
      count: 2,
      region: 'us-east-1',
      wallS: 60,
      invocations: 2,
    });
    expect(fargate.usd).toBeNull();
    expect(fargate.unpriced).toContain('Fargate');
    expect(workerCostLine(fargate)).toMatch(/: unpriced \(/);
    const elsewhere = workerCost({
      shape: { platform: 'aws:lambda', memoryMb: 4096, architecture: 'arm64' },
      count: 1,
      region: 'ap-south-1',
      wallS: 60,
      invocations: 1,
    });
    expect([elsewhere.usd, elsewhere.unpriced]).toEqual([
      null,
      'no price file for ap-south-1 in core/prices/',
    ]);
  });
});
