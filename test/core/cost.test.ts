/**
 * The price files and the one cost function: every price carries a unit, a source and a date;
 * AWS's own worked pricing examples come out to the cent (Lambda, DynamoDB on-demand, Aurora
 * DSQL); unverified prices stay out of the totals and say so; bad input changes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BilledQuantity, costOf, gbSeconds, monthlyBill } from '../../core/cost';
import {
  loadPriceFile,
  PRICES_DIR,
  type PriceFile,
  parsePriceFile,
  priceFileLabel,
} from '../../core/price-file';
import { dsqlTransactionDpu } from '../../targets/dsql/cost';
import { dynamodbReadUnits, dynamodbWriteUnits } from '../../targets/dynamodb/cost';

const usEast = loadPriceFile(join(PRICES_DIR, 'us-east-1.json'));
const cents = (usd: number) => Math.round(usd * 100) / 100;
const q = (key: string, quantity: number): BilledQuantity => ({ key, quantity, basis: 'measured' });

/** The same file with one price replaced: a worked example states its own price. */
function withPrice(p: PriceFile, key: string, usd: number, per: number): PriceFile {
  return { ...p, prices: { ...p.prices, [key]: { ...p.prices[key], usd, per } } };
}

describe('price files', () => {
  const regionFiles = readdirSync(PRICES_DIR).filter((f) => /^[a-z]{2}-[a-z]+-\d\.json$/.test(f));

  it('has at least us-east-1 and eu-west-1, each valid, every price with unit, https source and date', () => {
    expect(regionFiles).toEqual(expect.arrayContaining(['us-east-1.json', 'eu-west-1.json']));
    for (const f of regionFiles) {
      const p = loadPriceFile(join(PRICES_DIR, f));
      expect(p.region).toBe(f.replace('.json', ''));
      for (const [key, e] of Object.entries(p.prices)) {
        expect(e.unit, key).not.toBe('');
        expect(e.source, key).toMatch(/https:\/\//);
        expect(e.read, key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        // An unverified price is null and says why; a verified one is a number.
        if (e.usd === null) expect(e.unverified, key).toBeTruthy();
        else expect(e.unverified, key).toBeUndefined();
      }
    }
  });

  it('carries the us-east-1 first-tier figures the lab bills with', () => {
    const usd = (k: string) => (usEast.prices[k].usd ?? Number.NaN) / usEast.prices[k].per;
    expect(usd('lambda.requests')).toBeCloseTo(0.2e-6, 15);
    expect(usd('lambda.gbSeconds.arm64')).toBe(0.0000133334);
    expect(usd('lambda.gbSeconds.x86_64')).toBe(0.0000166667);
    expect(usd('api.http.requests')).toBeCloseTo(1e-6, 15);
    expect(usd('dynamodb.writeRequestUnits')).toBeCloseTo(0.625e-6, 15);
    expect(usd('dynamodb.readRequestUnits')).toBeCloseTo(0.125e-6, 15);
    expect(usd('dsql.dpu')).toBeCloseTo(8e-6, 15);
    expect(usd('redis.commands')).toBeCloseTo(0.2 / 100000, 15);
    expect(priceFileLabel(usEast)).toBe('us-east-1.json (us-east-1, read 2026-11-25)');
  });

  it("carries Lambda's duration tiers and the arm64 provisioned duration as the cited AWS posts give them", () => {
    // Prices are listed to 10 decimals. The tiers: 10% off the first tier's price between the
    // thresholds, 20% off beyond (aws.amazon.com/blogs/compute/introducing-tiered-pricing-for-aws-lambda);
    // arm64 duration, with provisioned concurrency too, is 20% below x86 (the Graviton2 announcement).
    const listed = (usd: number) => Number(usd.toFixed(10));
    for (const f of regionFiles) {
      const p = loadPriceFile(join(PRICES_DIR, f));
      const usd = (k: string) => {
        expect(p.prices[k], `${f} ${k}`).toBeDefined();
        return p.prices[k].usd;
      };
      for (const arch of ['arm64', 'x86_64']) {
        const first = usd(`lambda.gbSeconds.${arch}`) ?? Number.NaN;
        expect(usd(`lambda.gbSeconds.${arch}.tier2`), `${f} ${arch}`).toBe(listed(first * 0.9));
        expect(usd(`lambda.gbSeconds.${arch}.tier3`), `${f} ${arch}`).toBe(listed(first * 0.8));
      }
      expect(usd('lambda.provisionedDurationGbSeconds.arm64'), f).toBe(
        listed((usd('lambda.provisionedDurationGbSeconds.x86_64') ?? Number.NaN) * 0.8),
      );
      // No stored AWS page gives the configured-concurrency price on arm64: null, saying why.
      expect(usd('lambda.provisionedGbSeconds.arm64'), f).toBeNull();
    }
    // us-east-1's as AWS lists them.
    const usd = (k: string) => usEast.prices[k].usd;
    expect(usd('lambda.gbSeconds.x86_64.tier2')).toBe(0.000015);
    expect(usd('lambda.gbSeconds.x86_64.tier3')).toBe(0.0000133334);
    expect(usd('lambda.gbSeconds.arm64.tier2')).toBe(0.0000120001);
    expect(usd('lambda.gbSeconds.arm64.tier3')).toBe(0.0000106667);
    expect(usd('lambda.provisionedDurationGbSeconds.arm64')).toBe(0.0000077778);
  });

  it('refuses a price without a source URL, a unit or a date, and an unexplained null, naming the field', () => {
    const raw = JSON.parse(readFileSync(join(PRICES_DIR, 'us-east-1.json'), 'utf8'));
    const broken = (mutate: (p: Record<string, unknown>) => void) => {
      const copy = structuredClone(raw);
      mutate(copy.prices['api.rest.requests']);
      return () => parsePriceFile(copy, 'x.json');
    };
    expect(broken((p) => delete p.source)).toThrow(/x\.json\.prices\.api\.rest\.requests\.source/);
    expect(broken((p) => (p.source = 'the pricing page'))).toThrow(/https URL/);
    expect(broken((p) => delete p.unit)).toThrow(/api\.rest\.requests\.unit/);
    expect(broken((p) => (p.read = '25/11/2026'))).toThrow(/api\.rest\.requests\.read must be a date/);
    expect(broken((p) => (p.usd = null))).toThrow(/unverified \(required when usd is null\)/);
    expect(broken((p) => (p.usd = -1))).toThrow(/usd must be a number >= 0 or null/);
    expect(() => loadPriceFile('/nonexistent/prices.json')).toThrow(/cannot read price file \/nonexistent/);
    // The file on disk is untouched by the failed parses.
    expect(loadPriceFile(join(PRICES_DIR, 'us-east-1.json')).prices['api.rest.requests'].usd).toBe(3.5);
  });
});

describe("AWS's worked pricing examples, to the cent", () => {
  it('Lambda: 512 MB, 3 million invocations of 1 s a month with the free tier = $18.34 + $0.40 = $18.74', () => {
    // https://aws.amazon.com/lambda/pricing/ (Example 1, as the page gave it: $0.00001667 per
    // GB-s, 400,000 GB-s and 1M requests free; 1,100,000 GB-s x $0.00001667 = $18.34, 2M x
    // $0.2/M = $0.40, total $18.74 a month). The example states its own rounded price.
    const prices = withPrice(usEast, 'lambda.gbSeconds.x86_64', 0.00001667, 1);
    const qs = [
      q('lambda.gbSeconds.x86_64', 3_000_000 * gbSeconds(1000, 512)),
      q('lambda.requests', 3_000_000),
    ];
    const bill = monthlyBill(qs, prices, { freeTier: true });
    const line = (k: string) => bill.lines.find((l) => l.key === k);
    expect(line('lambda.gbSeconds.x86_64')).toMatchObject({ billable: 1_100_000, free: 400_000 });
    expect(cents(line('lambda.gbSeconds.x86_64')?.usd ?? 0)).toBe(18.34);
    expect(cents(line('lambda.requests')?.usd ?? 0)).toBe(0.4);
    expect(cents(bill.totalUsd)).toBe(18.74);
    // The free tier is a line of its own: the per-request figure never folds it in.
    const perRequest = costOf(qs, 3_000_000, prices);
    expect(cents(perRequest.perMillion.total)).toBe(cents((1_500_000 * 0.00001667 + 0.6) / 3));
    // At today's unrounded price the same month is $18.33 of compute.
    expect(cents(monthlyBill(qs, usEast, { freeTier: true }).lines[0].usd ?? 0)).toBe(18.33);
  });

  it('DynamoDB on-demand: an 8 KB read is 2 RRU strong, 1 eventual, 4 transactional; a 3 KB write 3 WRU, 6 in a transaction', () => {
    // https://aws.amazon.com/dynamodb/pricing/on-demand/ (key terms: the 8 KB read examples) and
    // https://aws.amazon.com/dynamodb/pricing/provisioned/ (the 3 KB write examples), priced at the
    // on-demand page's $0.125 per million RRU and $0.625 per million WRU.
    const m = usEast.metering.dynamodb;
    expect(dynamodbReadUnits(8 * 1024, 'strong', m)).toBe(2);
    expect(dynamodbReadUnits(8 * 1024, 'eventual', m)).toBe(1);
    expect(dynamodbReadUnits(8 * 1024, 'transactional', m)).toBe(4);
    expect(dynamodbWriteUnits(3 * 1024, false, m)).toBe(3);
    expect(dynamodbWriteUnits(3 * 1024, true, m)).toBe(6);
    // A 3,500-byte item reads as 4 KB (developer guide, read-write-operations), and so does a miss.
    expect(dynamodbReadUnits(3500, 'strong', m)).toBe(1);
    expect(dynamodbReadUnits(0, 'eventual', m)).toBe(0.5);
    const million = 1_000_000;
    const strongReads = costOf([q('dynamodb.readRequestUnits', 2 * million)], million, usEast);
    const txWrites = costOf([q('dynamodb.writeRequestUnits', 6 * million)], million, usEast);
    expect(cents(strongReads.perMillion.database)).toBe(0.25);
    expect(cents(txWrites.perMillion.database)).toBe(3.75);
  });

  it('Aurora DSQL: the billing page examples give 0.00675, 0.02631, 0.06175 and 0.70875 DPU; a million single inserts cost $0.49, a million bulk inserts $5.67', () => {
    // https://docs.aws.amazon.com/aurora-dsql/latest/userguide/billing-metering.html (Billing
    // examples: point lookup, filtered range scan, single insert, bulk insert; us-east-1 price).
    const m = usEast.metering.dsql.rules;
    const dpu = (t: Parameters<typeof dsqlTransactionDpu>[0]) => dsqlTransactionDpu(t, m).total;
    const pointLookup = dpu({ computeSeconds: 0.003, bytesRead: 500, rowsWrittenBytes: [] });
    const rangeScan = dpu({ computeSeconds: 0.008, bytesRead: 10_000, rowsWrittenBytes: [] });
    const insert = dpu({ computeSeconds: 0.008, bytesRead: 16, rowsWrittenBytes: [100] });
    const bulk = dpu({ computeSeconds: 0.08, bytesRead: 1600, rowsWrittenBytes: Array(100).fill(100) });
    expect(pointLookup).toBeCloseTo(0.00675, 5);
    expect(rangeScan).toBeCloseTo(0.02631, 5);
    expect(insert).toBeCloseTo(0.06175, 5);
    // The page rounds each component (12,800 B x 0.00004883 = 0.625024 shown as 0.625).
    expect(bulk).toBeCloseTo(0.70875, 4);
    const million = 1_000_000;
    expect(cents(costOf([q('dsql.dpu', insert * million)], million, usEast).perMillion.database)).toBe(0.49);
    // A million bulk inserts of 100 rows: 708,750 DPU at $8.00 per million DPU.
    expect(cents(costOf([q('dsql.dpu', bulk * million)], million, usEast).perMillion.database)).toBe(5.67);
  });
});

describe('costOf', () => {
  it('groups $ per million requests into Lambda, API and database, each component with its price and source', () => {
    const c = costOf(
      [
        q('lambda.requests', 200),
        q('lambda.gbSeconds.arm64', 200 * gbSeconds(20, 1024)),
        q('api.http.requests', 200),
        { key: 'dynamodb.readRequestUnits', quantity: 100, basis: 'computed' },
      ],
      200,
      usEast,
    );
    expect(c.perMillion.lambda).toBeCloseTo(0.2 + 0.02 * 0.0000133334 * 1e6, 9);
    expect(c.perMillion.api).toBeCloseTo(1, 12);
    expect(c.perMillion.database).toBeCloseTo(0.0625, 12);
    expect(c.perMillion.total).toBeCloseTo(
      c.perMillion.lambda + c.perMillion.api + c.perMillion.database,
      12,
    );
    const rru = c.components.find((x) => x.key === 'dynamodb.readRequestUnits');
    expect(rru).toMatchObject({ basis: 'computed', usd: 0.125, per: 1_000_000, group: 'database' });
    expect(rru?.source).toMatch(/^https:\/\/aws\.amazon\.com\/dynamodb\/pricing/);
  });

  it('leaves an unverified price out of the totals and lists it, never as $0', () => {
    // eu-west-1's QLDB I/O prices are unverified (the stored pricing page shows US East only).
    const euWest = loadPriceFile(join(PRICES_DIR, 'eu-west-1.json'));
    const c = costOf([q('qldb.readIos', 300), q('lambda.requests', 100)], 100, euWest);
    expect(c.unpriced).toEqual(['qldb.readIos']);
    expect(c.components.find((x) => x.key === 'qldb.readIos')).toMatchObject({
      totalUsd: null,
      usdPerMillionRequests: null,
    });
    expect(c.perMillion.database).toBe(0);
  });

  it("prices QLDB's I/Os in us-east-1 at the verified $0.70 / $0.136 per million", () => {
    const c = costOf([q('qldb.writeIos', 1), q('qldb.readIos', 1), q('lambda.requests', 1)], 1, usEast);
    expect(c.unpriced).toEqual([]);
    expect(c.perMillion.database).toBeCloseTo(0.7 + 0.136, 12);
  });

  it('refuses an unknown price key, a negative quantity and zero requests', () => {
    expect(() => costOf([q('lambda.gbSeconds.riscv', 1)], 1, usEast)).toThrow(
      /no price 'lambda\.gbSeconds\.riscv'/,
    );
    expect(() => costOf([q('lambda.requests', -1)], 1, usEast)).toThrow(/quantity must be finite and >= 0/);
    expect(() => costOf([], 0, usEast)).toThrow(/requests must be an integer > 0/);
  });
});
